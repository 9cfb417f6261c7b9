import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { EvmEoaService } from './evm-eoas.js';
import { Challenge, ChallengeQuery, ListEoasQuery, RegisterEoaBody, Wallet, WalletList } from './schemas.js';

export function evmEoaRoutes(app: FastifyInstance, deps: { eoas: EvmEoaService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { eoas } = deps;
  const tags = ['Wallets'];

  r.get(
    '/evm-eoas/challenge',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'A Sign-In with Ethereum (EIP-4361) challenge: single-use nonce (10 minutes) and the fields to sign',
        querystring: ChallengeQuery,
        response: { 200: Challenge, ...errorResponses(403, 429) },
      },
    },
    async (request) => eoas.challenge(request.tenant, contextOf(request, Access.user).userId, request.query.address),
  );

  r.post(
    '/evm-eoas',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Register an EVM address (a key, or a contract wallet via EIP-1271 / ERC-6492) with a signed SIWE message',
        body: RegisterEoaBody,
        // 404: the token names a user that does not exist.
        response: { 201: Wallet, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const result = await eoas.register(request.tenant, contextOf(request, Access.user).userId, request.body, contextOf(request, Access.user).actor);
      return reply.status(201).send(result.wallet);
    },
  );

  r.get(
    '/evm-eoas',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A user's registered EVM addresses (the caller's; an API key or admin passes userId)",
        querystring: ListEoasQuery,
        response: { 200: WalletList, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { userId, ...page } = request.query;
      return eoas.list(contextOf(request, Access.apiKeyOrUser), userId, page);
    },
  );
}
