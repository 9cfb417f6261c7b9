import type { FastifyInstance, FastifyReply } from 'fastify';
import { safeEqual } from '../../platform/crypto/hash.js';
import { SandboxErrors, requestId, type SandboxError } from './errors.js';
import { credentialsOf, hashToken, sendError, SANDBOX_PREFIX, type Json, type SandboxContext } from './context.js';

export class SandboxFailure extends Error {
  constructor(readonly error: SandboxError) {
    super(error.body.error_code);
  }
}

export const fail = (error: SandboxError): never => {
  throw new SandboxFailure(error);
};

export interface EndpointSpec {
  /** Top-level fields that must be present. */
  required: string[];
  /** Further fields the endpoint knows; anything else is UNKNOWN_FIELDS. */
  optional?: string[];
}

const CREDENTIAL_FIELDS = ['client_id', 'secret'];

/**
 * Registers a provider endpoint: POST, JSON body, credentials checked as the provider checks
 * them (missing: MISSING_FIELDS; wrong: INVALID_API_KEYS), then the handler with the client id.
 * Answers carry `request_id`; failures the provider's error body.
 */
/** What the sandbox's JSON parser hands on for a body that is not JSON. */
export const UNPARSABLE_BODY = 'unparsable body';

export function endpoint(
  app: FastifyInstance,
  context: SandboxContext,
  path: string,
  spec: EndpointSpec,
  handler: (clientId: string, body: Json) => Promise<Json>,
): void {
  app.post(`${SANDBOX_PREFIX}${path}`, { config: { tenancy: false }, schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return sendError(reply, SandboxErrors.invalidBody());
    const fields = body as Json;
    const { clientId, secret } = credentialsOf(request, fields);
    const missing = [...(clientId ? [] : ['client_id']), ...(secret ? [] : ['secret']), ...spec.required.filter((f) => fields[f] === undefined || fields[f] === null)];
    if (missing.length > 0) return sendError(reply, SandboxErrors.missingFields(missing));
    const known = new Set([...CREDENTIAL_FIELDS, ...spec.required, ...(spec.optional ?? [])]);
    const unknown = Object.keys(fields).filter((f) => !known.has(f));
    if (unknown.length > 0) return sendError(reply, SandboxErrors.unknownFields(unknown));
    const client = await context.store.findClient(clientId!);
    if (!client || !safeEqual(hashToken(secret!), client.secretHash)) return sendError(reply, SandboxErrors.invalidApiKeys());
    try {
      const answer = await handler(client.clientId, fields);
      return reply.header('cache-control', 'no-store').send({ ...answer, request_id: requestId() });
    } catch (error) {
      if (error instanceof SandboxFailure) return sendError(reply, error.error);
      throw error;
    }
  });
}

export const str = (value: unknown, field: string, max = 500): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) fail(SandboxErrors.invalidField(`${field} must be a non-empty string of at most ${max} characters`));
  return value as string;
};

export const int = (value: unknown, field: string, min: number, max: number, fallback: number): number => {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(SandboxErrors.invalidField(`${field} must be an integer from ${min} to ${max}`));
  return value as number;
};
