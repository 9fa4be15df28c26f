import t from 'tap';
import { Type } from 'typebox';
import { lazySerializerFactory } from '../../../src/http/lazy-compilers.ts';

// Response serializers are compiled on first use and kept per process: a server built again with the same
// settings reuses them, one built with other settings gets its own.

const schema = Type.Object({ count: Type.Integer(), state: Type.Union([Type.Literal('a'), Type.Literal('b')]) });
const route = (s: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema: s });

t.test('a serializer is compiled once per settings and schema, and serializes by the schema', async (t) => {
  const first = lazySerializerFactory(undefined, {})(route(schema));
  t.equal(first({ count: 3, state: 'b', extra: 'dropped' }), '{"count":3,"state":"b"}', 'by the schema');
  const again = lazySerializerFactory(undefined, {})(route(schema));
  t.equal(again({ count: 4, state: 'a' }), '{"count":4,"state":"a"}', 'a second server serializes the same');

  const ceiling = lazySerializerFactory(undefined, { rounding: 'ceil' })(route(schema));
  t.equal(ceiling({ count: 1.2, state: 'a' }), '{"count":2,"state":"a"}', 'other settings: its own serializer');
  t.equal(first({ count: 1.2, state: 'a' }), '{"count":1,"state":"a"}', 'the first keeps its own');

  const other = Type.Object({ count: Type.Integer() });
  t.equal(
    lazySerializerFactory(undefined, {})(route(other))({ count: 5, state: 'a' }),
    '{"count":5}',
    'another schema',
  );
});

t.test('a server built again does not compile a schema it already compiled', async (t) => {
  // Compiling reads the schema; a schema read only through a counting proxy shows whether it was compiled again.
  let reads = 0;
  const watched = new Proxy(Type.Object({ name: Type.String() }), {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  t.equal(lazySerializerFactory(undefined, {})(route(watched))({ name: 'x' }), '{"name":"x"}');
  const afterFirst = reads;
  t.ok(afterFirst > 0, 'the first server compiled it');
  t.equal(lazySerializerFactory(undefined, {})(route(watched))({ name: 'y' }), '{"name":"y"}');
  t.equal(reads, afterFirst, 'the same settings: the compiled serializer is reused');
  t.equal(lazySerializerFactory(undefined, { rounding: 'ceil' })(route(watched))({ name: 'z' }), '{"name":"z"}');
  t.ok(reads > afterFirst, 'other settings: compiled again');
});
