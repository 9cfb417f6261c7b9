import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { subjectFor } from '../users/acting-for.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { IdentityErrors } from './errors.js';
import { IdentityProof, IdentityQuery, IdentityRoot, ProofQuery } from './schemas.js';
import type { IdentityService } from './service.js';

/** Whose identity: a plain user's own; an API key or admin names the user (default: the admin). The service checks it exists. */
function subjectOf(request: FastifyRequest, userId: string | undefined): string {
  return subjectFor(contextOf(request, Access.apiKeyOrUser), userId, IdentityErrors.userIdRequired);
}

export function identityRoutes(app: FastifyInstance, deps: { identity: IdentityService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { identity } = deps;
  const tags = ['Identity'];

  r.get(
    '/kyc/identity/root',
    {
      config: { auth: Access.apiKeyOrUser },
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
      config: { auth: Access.apiKeyOrUser },
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
