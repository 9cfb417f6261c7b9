import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { IdempotencyKeyHeader } from '../../platform/idempotency/http.js';
import { EmptyBody, errorResponses } from '../../platform/http/schemas.js';
import type { XrplNonCustodial } from './xrpl-noncustodial.js';
import type { XrplSecureAccounts } from './xrpl-secure-accounts.js';
import {
  AddressParam,
  ChallengeQuery,
  ListQuery,
  RegisterColdBody,
  RegisterSecureAccountBody,
  SignedMessage,
  SignedTransaction,
  SignMessageBody,
  SignTransactionBody,
  Submission,
  TxSubmitBody,
  UpdateWalletBody,
  UpdateWalletResult,
  UserBody,
  UserQuery,
  WalletPage,
  WalletsByKind,
  XrplChallenge,
  XrplWallet,
} from './xrpl-schemas.js';
import { Wallet } from '../wallets/module.js';

/** /xrpl-secure-accounts and /non-custodian-xrpl. */
export function xrplRoutes(app: FastifyInstance, deps: { secure: XrplSecureAccounts; noncustodial: XrplNonCustodial }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { secure, noncustodial: nc } = deps;
  const tags = ['Wallets (XRPL)'];

  r.post(
    '/xrpl-secure-accounts',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Register an existing multi-signed (SignerList) or regular-key account, proven by signatures over a challenge',
        body: RegisterSecureAccountBody,
        response: { 201: Wallet, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const result = await secure.register(contextOf(request, Access.apiKeyOrUser), request.body);
      return reply.status(201).send(result.wallet);
    },
  );

  r.get(
    '/xrpl-secure-accounts',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: "The user's secure XRPL accounts (paged)", querystring: ListQuery, response: { 200: WalletPage, ...errorResponses(403, 404, 503) } } },
    async (request) => {
      const { userId, ...page } = request.query;
      return secure.list(contextOf(request, Access.apiKeyOrUser), userId, page);
    },
  );

  r.get(
    '/xrpl-secure-accounts/:address',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'One secure XRPL account of the user', params: AddressParam, querystring: UserQuery, response: { 200: Wallet, ...errorResponses(403, 404, 503) } },
    },
    async (request) => secure.get(contextOf(request, Access.apiKeyOrUser), request.query.userId, request.params.address),
  );

  r.get(
    '/non-custodian-xrpl/challenge',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'A single-use challenge (10 minutes) to sign for registering an XRPL wallet or secure account; ?address= binds it to that account',
        querystring: ChallengeQuery,
        response: { 200: XrplChallenge, ...errorResponses(403, 404, 429) },
      },
    },
    async (request) => nc.challengeFor(contextOf(request, Access.apiKeyOrUser), request.query.userId, request.query.address ?? null),
  );

  r.post(
    '/non-custodian-xrpl/wallet/investor',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "Create the user's investor account (service-generated; multi-signed by the signer and cold wallets once set up)",
        body: UserBody,
        response: { 201: XrplWallet, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send((await nc.createInvestor(contextOf(request, Access.apiKeyOrUser), request.body?.userId)).wallet),
  );

  r.post(
    '/non-custodian-xrpl/wallet/signer-wallet',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: "Create the user's signer (hot) wallet: its key is generated and sealed by the service", body: UserBody, response: { 201: XrplWallet, ...errorResponses(403, 404, 409, 503) } },
    },
    async (request, reply) => reply.status(201).send((await nc.createSigner(contextOf(request, Access.apiKeyOrUser), request.body?.userId)).wallet),
  );

  r.post(
    '/non-custodian-xrpl/wallet/challenge/:address',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'A single-use challenge bound to a cold wallet address',
        params: AddressParam,
        querystring: UserQuery,
        body: EmptyBody,
        response: { 201: XrplChallenge, ...errorResponses(403, 404, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await nc.challengeFor(contextOf(request, Access.apiKeyOrUser), request.query.userId, request.params.address)),
  );

  r.post(
    '/non-custodian-xrpl/wallet',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "Register a cold wallet (the user's key, never sent): a signature over the challenge by its master or regular key",
        body: RegisterColdBody,
        response: { 201: XrplWallet, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send((await nc.registerCold(contextOf(request, Access.apiKeyOrUser), request.body)).wallet),
  );

  r.put(
    '/non-custodian-xrpl/wallet/update/:address',
    {
      // Submits AccountSet transactions: a value move, so a retry with its Idempotency-Key
      // replays the first answer (optional: the spec names no key for this route).
      config: { auth: Access.apiKeyOrUser, idempotency: 'optional' },
      schema: {
        tags,
        summary: 'Change account settings (rippling, ...) by AccountSet signed by the service; multiSignature sets up the investor account (Idempotency-Key optional: a retry replays the first answer; the same key with another body is 409)',
        params: AddressParam,
        headers: IdempotencyKeyHeader,
        body: UpdateWalletBody,
        response: { 200: UpdateWalletResult, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request) => nc.update(contextOf(request, Access.apiKeyOrUser), request.params.address, request.body),
  );

  r.post(
    '/non-custodian-xrpl/sign',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'Testing only (XRPL_TEST_SIGNING): sign a message with a key the service holds for the user', body: SignMessageBody, response: { 201: SignedMessage, ...errorResponses(403, 404, 409) } },
    },
    async (request, reply) => reply.status(201).send(await nc.signMessage(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.post(
    '/non-custodian-xrpl/sign-transaction',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Prepare a transaction of one of the user\'s wallets: autofilled, signed where the service may, with what the cold wallet must sign',
        body: SignTransactionBody,
        response: { 201: SignedTransaction, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await nc.signTransaction(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.post(
    '/non-custodian-xrpl/tx-submit',
    {
      config: { auth: Access.apiKeyOrUser, idempotency: 'optional' },
      schema: {
        tags,
        summary: "Submit a signed blob of the user's wallet: verified locally, tracked, followed until validated or expired (Idempotency-Key optional: a retry replays the first answer; the same key with another body is 409)",
        body: TxSubmitBody,
        headers: IdempotencyKeyHeader,
        response: { 201: Submission, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await nc.submit(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.get(
    '/non-custodian-xrpl/wallets',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: "The user's XRPL wallets by kind", querystring: UserQuery, response: { 200: WalletsByKind, ...errorResponses(403, 404) } } },
    async (request) => nc.listWallets(contextOf(request, Access.apiKeyOrUser), request.query.userId),
  );
}
