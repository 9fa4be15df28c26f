import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';

/** A function compiled on its first call, then kept: a route's schema costs nothing until the route is used. */
function lazily<A extends unknown[], R>(compile: () => (...args: A) => R): (...args: A) => R {
  let compiled: ((...args: A) => R) | undefined;
  return (...args) => (compiled ??= compile())(...args);
}

// fastify compiles every route's request validators and response serializers when the server starts
// (about 200 routes: several hundred milliseconds of CPU per start); a process serves a fraction of them,
// and the OpenAPI document is built from the schemas, not from the compiled functions. These compile each
// one when its route first needs it.

export const lazyValidatorCompiler: typeof TypeBoxValidatorCompiler = (route) =>
  lazily(() => TypeBoxValidatorCompiler(route));

/**
 * Compiled serializers by settings, then by response schema: a serializer depends on nothing else, and the
 * schemas are the routes' module-level objects, so a server built again in the same process (the tests build
 * hundreds) reuses what an earlier one compiled.
 */
const compiledSerializers = new Map<string, WeakMap<object, SerializerSelector.Serializer>>();

export const lazySerializerFactory: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
  const build = SerializerSelector()(externalSchemas, options);
  const settings = JSON.stringify([externalSchemas ?? null, options ?? null]);
  const compiled = compiledSerializers.get(settings) ?? new WeakMap<object, SerializerSelector.Serializer>();
  compiledSerializers.set(settings, compiled);
  return (route) =>
    lazily(() => {
      const schema = route.schema;
      if (typeof schema !== 'object' || schema === null) return build(route);
      const known = compiled.get(schema);
      if (known) return known;
      const serializer = build(route);
      compiled.set(schema, serializer);
      return serializer;
    });
};
