import { Type } from 'typebox';

/** Schema helpers of the providers' webhook bodies (providers may add fields: unknown ones are accepted). */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
export const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);

export const Person = Type.Object({
  firstName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  lastName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  dateOfBirth: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
});
export const Document = Type.Object({
  country: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
  type: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
});
