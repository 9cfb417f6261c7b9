import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { EmptyBody, errorResponses } from '../../platform/http/schemas.js';
import type { IdvBService } from './idv-b.js';
import { SessionCreated, Web3Challenge, Web3ChallengeBody } from './schemas.js';

export function idvBRoutes(app: FastifyInstance, deps: { idvB: IdvBService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { idvB } = deps;
  const tags = ['KYC'];

  r.post(
    '/kyc/idv-b/web3-challenge',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Start an idv-b wallet verification: answers the challenge the wallet signs and the session URL',
        body: Web3ChallengeBody,
        response: { 201: Web3Challenge, ...errorResponses(403, 404, 502, 503) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await idvB.web3Challenge(contextOf(request, Access.user), request.body)),
  );

  r.post(
    '/kyc/idv-b/regular-challenge',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'Start an idv-b verification without a wallet', body: EmptyBody, response: { 201: SessionCreated, ...errorResponses(403, 404, 502, 503) } },
    },
    async (request, reply) => reply.status(201).send(await idvB.regularChallenge(contextOf(request, Access.user))),
  );
}
