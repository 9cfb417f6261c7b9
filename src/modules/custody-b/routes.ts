import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf, type UserContext } from '../../platform/http/context.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { Wallet, WalletList } from '../wallets/module.js';
import {
  ActionChallenge,
  AddressQuery,
  AuthToken,
  BroadcastResult,
  CreateWalletBody,
  CustodyBUser,
  Eip712ChallengeBody,
  Eip712SignBody,
  MessageChallengeBody,
  MessageSignBody,
  RawTransactionChallengeBody,
  RawTransactionCompleteBody,
  RegisterBody,
  RegistrationChallenge,
  SignatureResult,
  WalletChallengeQuery,
  WalletListQuery,
} from './schemas.js';
import type { CustodyBService } from './service.js';

/** The caller acts as itself: a user's bearer token (the one call context). */
const callerOf = (request: FastifyRequest): UserContext => contextOf(request, Access.user);

export function custodyBRoutes(app: FastifyInstance, deps: { service: CustodyBService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { service } = deps;
  const tags = ['Custody provider (custody-b)'];
  // A provider call may also answer the provider's 404, its conflict (409), 502 and 503 (not configured, unreachable).
  const challengeErrors = errorResponses(400, 401, 403, 404, 409, 502, 503);

  r.get(
    '/custody-b/users/auth-token',
    { config: { auth: Access.user }, schema: { tags, summary: "The provider's token for the caller (delegated login)", response: { 200: AuthToken, ...errorResponses(403, 404, 409, 502, 503) } } },
    async (request) => service.authToken(callerOf(request)),
  );

  r.get(
    '/custody-b/users/challenge',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "Delegated registration: a challenge for the caller's new credential (a key credential or a passkey) to sign",
        response: { 200: RegistrationChallenge, ...errorResponses(403, 404, 409, 502, 503) },
      },
    },
    async (request) => service.registrationChallenge(callerOf(request)),
  );

  r.post(
    '/custody-b/users',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Completes the registration with the new credential (its attestation over the challenge); a second registration is 409',
        body: RegisterBody,
        response: { 201: CustodyBUser, ...errorResponses(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.register(callerOf(request), request.body)),
  );

  r.get(
    '/custody-b/wallets/challenge',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'A user-action challenge for creating a wallet on a network (bound to that request); one wallet per network (409)',
        querystring: WalletChallengeQuery,
        response: { 200: ActionChallenge, ...errorResponses(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (request) => service.walletChallenge(callerOf(request), request.query.network),
  );

  r.post(
    '/custody-b/wallets',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Creates a wallet with the signed challenge; registered in the wallet registry as kind custody-b',
        body: CreateWalletBody,
        response: { 201: Wallet, ...errorResponses(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.createWallet(callerOf(request), request.body)),
  );

  r.get(
    '/custody-b/wallets',
    { config: { auth: Access.user }, schema: { tags, summary: "The caller's custody-b wallets", querystring: WalletListQuery, response: { 200: WalletList, ...errorResponses(403) } } },
    async (request) => service.listWallets(callerOf(request), request.query),
  );

  r.post(
    '/custody-b/raw-transaction/challenge',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "A user-action challenge for signing and broadcasting an unsigned transaction with the caller's wallet",
        querystring: AddressQuery,
        body: RawTransactionChallengeBody,
        response: { 201: ActionChallenge, ...challengeErrors },
      },
    },
    async (request, reply) => reply.status(201).send(await service.rawTransactionChallenge(callerOf(request), request.query.address, request.body.transaction)),
  );

  r.post(
    '/custody-b/raw-transaction/complete',
    {
      config: { auth: Access.user, idempotency: 'optional' },
      schema: {
        tags,
        summary: 'Signs the transaction with the signed challenge and broadcasts it; answers its hash (Idempotency-Key optional)',
        querystring: AddressQuery,
        body: RawTransactionCompleteBody,
        response: { 201: BroadcastResult, ...errorResponses(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.rawTransactionComplete(callerOf(request), request.query.address, request.body)),
  );

  r.post(
    '/custody-b/message/challenge',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'A user-action challenge for an EIP-191 signature of a text message', body: MessageChallengeBody, response: { 201: ActionChallenge, ...challengeErrors } },
    },
    async (request, reply) => reply.status(201).send(await service.messageChallenge(callerOf(request), request.body)),
  );

  r.post(
    '/custody-b/message',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'Signs the message (EIP-191) with the signed challenge', body: MessageSignBody, response: { 201: SignatureResult, ...challengeErrors } },
    },
    async (request, reply) => reply.status(201).send(await service.signMessage(callerOf(request), request.body)),
  );

  r.post(
    '/custody-b/message/eip712/challenge',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'A user-action challenge for an EIP-712 typed-data signature', body: Eip712ChallengeBody, response: { 201: ActionChallenge, ...challengeErrors } },
    },
    async (request, reply) => reply.status(201).send(await service.typedDataChallenge(callerOf(request), request.body)),
  );

  r.post(
    '/custody-b/message/eip712/sign',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'Signs the typed data (EIP-712) with the signed challenge', body: Eip712SignBody, response: { 201: SignatureResult, ...challengeErrors } },
    },
    async (request, reply) => reply.status(201).send(await service.signTypedData(callerOf(request), request.body)),
  );
}

