import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerUserId, isPrivileged } from '../../platform/http/guards.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { IdentityErrors } from './errors.js';
import { IdentityProof, IdentityQuery, IdentityRoot, ProofQuery } from './schemas.js';
import type { IdentityService } from './service.js';

/** Whose identity: a plain user's own; an API key or admin names the user (default: the admin). */
function subjectOf(request: FastifyRequest, userId: string | undefined): string {
  const caller = callerUserId(request);
  if (isPrivileged(request)) {
    const subject = userId ?? caller;
    if (!subject) throw IdentityErrors.userIdRequired();
    return subject;
  }
  if (userId !== undefined && userId !== caller) throw IdentityErrors.userNotFound();
  return caller!;
}

export function identityRoutes(app: FastifyInstance, deps: { identity: IdentityService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { identity } = deps;
  const tags = ['Identity'];
  const auth = { auth: { apiKey: true, bearer: 'user' } } as const;

  r.get(
    '/kyc/identity/root',
    {
      config: auth,
      schema: {
        tags,
        summary: 'Identity root hash for on-chain verification (OpenZeppelin StandardMerkleTree), with earlier roots',
        querystring: IdentityQuery,
        response: { 200: IdentityRoot, ...errorResponses(403, 404) },
      },
    },
    async (request) => identity.root(request.tenant.id, subjectOf(request, request.query.userId)),
  );

  r.get(
    '/kyc/identity/proof',
    {
      config: auth,
      schema: {
        tags,
        summary: 'Merkle proof of one identity field against the current root',
        querystring: ProofQuery,
        response: { 200: IdentityProof, ...errorResponses(403, 404) },
      },
    },
    async (request) => identity.proof(request.tenant.id, subjectOf(request, request.query.userId), request.query.path),
  );
}
