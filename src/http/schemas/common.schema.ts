import { Type, type TLiteral, type TUnion } from 'typebox';

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }) });

/** A name in the path (a marketplace, a policy rule): the name rules are the use case's, the length is bounded here. */
export const NameParams = Type.Object({ name: Type.String({ maxLength: 200 }) });

/** The problem document every refusal answers with (RFC 9457). */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
  },
  { additionalProperties: true },
);

export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, Problem])) as Record<number, typeof Problem>;

/** A string enum from a const list, keeping the literal types for inference (and `enum` in OpenAPI). */
export const literalUnion = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value))) as unknown as TUnion<{
    -readonly [K in keyof T]: TLiteral<T[K]>;
  }>;
