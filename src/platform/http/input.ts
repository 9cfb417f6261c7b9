import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { CommonErrors } from './errors.js';
import { inputProblem } from './storable-text.js';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;

interface Validator {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

/** The dotted path of the first number in `value` that is NaN or infinite. */
function nonFinitePath(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinitePath(item, `${path}/${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Ajv counts Infinity as an integer and, when it coerces "1e309" with strictNumbers on, lets
 * it past `maximum`: so every validated input is checked for NaN and infinities afterwards.
 */
function finiteOnly(validate: Validator): Validator {
  const checked: Validator = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    const path = nonFinitePath(data);
    checked.errors = path === undefined ? null : [{ keyword: 'type', instancePath: path, params: {}, message: 'must be a finite number' }];
    return path === undefined;
  };
  return checked;
}

/**
 * A validator compiled at its first call, not when its route is registered: a start compiled
 * every schema of every route (about 1 s of CPU on the 2-core machines), where a process that
 * serves a few routes (a CLI run in process, a test's service) needs a few. A route's first
 * request pays its compile (milliseconds); Ajv's cache by schema still serves later apps.
 */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

/**
 * One Ajv per kind of input. Query strings and path parameters are text on the wire, so their
 * values are coerced to the declared types ("20" -> 20); JSON bodies already carry types, so a
 * number sent for a string field (or the reverse) is a 400, never converted. Neither lets NaN
 * or Infinity through (JSON's 1e309 and the query's limit=1e309 parse as Infinity).
 */
/**
 * One pool of Ajv instances for the process: Ajv keeps what it compiled by schema object, and
 * the routes' schemas are module constants, so a second app in the same process (the tests
 * build one per harness; the CLI's in-process runs) reuses every validator instead of
 * compiling it again.
 */
const sharedPool = AjvCompiler();

export function perPartValidators(): SchemaController {
  const pool = sharedPool;
  // The published typings describe the compiler as taking a schema; Fastify passes the route
  // definition ({ schema, method, url, httpPart }), as the package's own code expects.
  type Compile = (route: { httpPart?: string }) => Validator;
  const buildValidator = (externalSchemas: Parameters<typeof pool>[0], options?: { customOptions?: Record<string, unknown> }) => {
    const withOptions = (extra: Record<string, unknown>) =>
      pool(externalSchemas, { ...options, customOptions: { ...options?.customOptions, ...extra } } as Parameters<typeof pool>[1]) as unknown as Compile;
    const coercing = withOptions({ coerceTypes: 'array' });
    const exact = withOptions({ coerceTypes: false });
    return (route: { httpPart?: string }) => compiledOnFirstUse(() => finiteOnly(route.httpPart === 'body' ? exact(route) : coercing(route)));
  };
  return { compilersFactory: { buildValidator: buildValidator as unknown as AjvCompiler.BuildCompilerFromPool, buildSerializer: cachedSerializers } };
}

/**
 * Fastify's serializer compiler (fast-json-stringify), with what it compiled kept for the
 * process by schema: compiling every answer schema of every route is most of an app's start
 * after the validators, and a process that builds several apps (the tests, one per harness)
 * compiled the same schemas again each time. The key is the schema's JSON with the options,
 * so two equal schemas share one serializer and a changed one gets its own.
 */
const serializers = new Map<string, (data: unknown) => string>();
const buildSerializers = SerializerSelector();
const cachedSerializers = ((externalSchemas: unknown, serializerOpts: unknown) => {
  const build = buildSerializers(externalSchemas as never, serializerOpts as never) as unknown as (route: { schema: unknown }) => (data: unknown) => string;
  const prefix = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  return (route: { schema: unknown }) => {
    // Looked up (and compiled) at the first answer with this schema, as the validators are.
    let serializer: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      if (!serializer) {
        const key = `${prefix}|${JSON.stringify(route.schema)}`;
        serializer = serializers.get(key) ?? build(route);
        serializers.set(key, serializer);
      }
      return serializer(data);
    };
  };
}) as unknown as ReturnType<typeof SerializerSelector>;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function checkInput(request: FastifyRequest): void {
  // A request without a body is a request with an empty object: a route that takes nothing
  // accepts it, a route with required fields names them.
  if (request.body === undefined && BODY_METHODS.has(request.method)) request.body = {};
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [part, value] of parts) {
    const problem = inputProblem(value);
    if (problem) throw CommonErrors.validation(`${part}${problem.path ? `.${problem.path}` : ''} ${problem.message}`);
  }
}

/**
 * Checks every request's parsed input once, before validation and before any route's own
 * pre-validation work: no string, key or query/path value PostgreSQL cannot store (NUL,
 * unpaired surrogates), no absurd nesting. So no route can forget it. Also drops Fastify's
 * text/plain parser: the API speaks JSON, and any other media type is a 415.
 */
export function registerInputChecks(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addHook('preValidation', async (request) => checkInput(request));
}
