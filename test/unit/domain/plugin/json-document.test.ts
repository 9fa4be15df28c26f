import t from 'tap';
import { parseJson, type Doc } from '../../../../src/domain/plugin/json-document.ts';
import { lineWith } from '../../../support/scan-input.ts';

const docOf = (text: string): Doc => {
  const doc = parseJson(text);
  if (!('value' in doc)) throw new Error(`expected a document, got ${JSON.stringify(doc)}`);
  return doc;
};

t.test('values are JSON.parse values; lines are those of nested keys and items', async (t) => {
  const text = JSON.stringify({ a: { b: { c: [1, { d: 'x' }, [true, null]] } }, e: [] }, null, 2);
  const doc = docOf(text);
  t.strictSame(doc.value, JSON.parse(text));
  const value = doc.value as any;
  t.equal(doc.lineOf(value, 'a'), lineWith(text, '"a"'));
  t.equal(doc.lineOf(value.a.b, 'c'), lineWith(text, '"c"'));
  t.equal(doc.lineOf(value.a.b.c), lineWith(text, '"c"'), 'a collection is on the line it opens');
  t.equal(doc.lineOf(value.a.b.c, 0), lineWith(text, '1,'));
  t.equal(doc.lineOf(value.a.b.c, 1), lineWith(text, '"d"') - 1);
  t.equal(doc.lineOf(value.a.b.c[1], 'd'), lineWith(text, '"d"'));
  t.equal(doc.lineOf(value.a.b.c[2], 1), lineWith(text, 'null'));
  t.equal(doc.lineOf(value, 'missing'), 1, 'an unknown key falls back to the line of its holder');
  t.equal(doc.lineOf('not a node'), 1);
});

t.test('escaped strings in keys map to the key JSON.parse makes', async (t) => {
  const text =
    '{\n  "a\\"b": 1,\n  "\\u0041": {\n    "\\\\": [\n      "x"\n    ]\n  },\n  "\\ud83d\\ude00": 2,\n  "\\/": 3\n}';
  const doc = docOf(text);
  const value = doc.value as any;
  t.strictSame(Object.keys(value), ['a"b', 'A', '😀', '/']);
  t.equal(doc.lineOf(value, 'a"b'), 2);
  t.equal(doc.lineOf(value, 'A'), 3);
  t.equal(doc.lineOf(value.A, '\\'), 4);
  t.equal(doc.lineOf(value.A['\\'], 0), 5);
  t.equal(doc.lineOf(value, '😀'), 8);
  t.equal(doc.lineOf(value, '/'), 9);
});

t.test(
  'a duplicate key: the value and the lines are those of the last occurrence, as JSON.parse keeps it',
  async (t) => {
    const text = '{\n  "a": {"x": 1},\n  "b": 0,\n  "a": {\n    "x": 2\n  }\n}';
    const doc = docOf(text);
    const value = doc.value as any;
    t.strictSame(value.a, { x: 2 });
    t.equal(doc.lineOf(value, 'a'), 4);
    t.equal(doc.lineOf(value.a), 4);
    t.equal(doc.lineOf(value.a, 'x'), 5);
  },
);

t.test('CRLF and blank lines count as lines', async (t) => {
  const text = '{\r\n\r\n  "a": [\r\n    1,\r\n    2\r\n  ]\r\n}';
  const doc = docOf(text);
  t.equal(doc.lineOf(doc.value, 'a'), 3);
  t.equal(doc.lineOf((doc.value as any).a, 1), 5);
});

t.test('nesting deeper than any call stack is read without one', async (t) => {
  const depth = 200_000;
  const text = `${'['.repeat(depth)}{"k": 1}${']'.repeat(depth)}`;
  const doc = docOf(text);
  let node = doc.value as any;
  for (let k = 0; k < depth; k++) node = node[0];
  t.strictSame(node, { k: 1 });
  t.equal(doc.lineOf(node, 'k'), 1);
  t.match(parseJson(`${'['.repeat(depth)}]`), { line: 1, message: 'is not valid JSON (line 1)' });
});

t.test('syntax errors: the line of the offending token, a message that does not echo the text', async (t) => {
  t.strictSame(parseJson('{\n  "secret-token": "abc",\n  oops\n}'), { line: 3, message: 'is not valid JSON (line 3)' });
  t.strictSame(
    parseJson('{\n  "a": "unterminated\n}'),
    { line: 2, message: 'is not valid JSON (line 2)' },
    'a raw newline inside a string',
  );
  t.strictSame(parseJson('[1,\n2,\n]'), { line: 3, message: 'is not valid JSON (line 3)' });
  t.strictSame(parseJson('{}\n\n{}'), { line: 3, message: 'is not valid JSON (line 3)' }, 'text after the value');
});
