import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { keepRawJsonBody } from '../../platform/http/raw-body.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/http/schemas.js';
import { IdempotencyKeyHeader } from '../../platform/idempotency/http.js';
import { parseIdempotencyKey } from '../../platform/idempotency/key.js';
import {
  AdminTransfer, AdminTransferList, AdminTransferListQuery, CreateVaultBody, NonCustodialTransferBody, Transaction, TransactionPathParams, Transfer, TransferBody, TransferIdParams, TransferList,
  TransferListQuery, UpdateWalletBody, Vault, VaultQuery, WalletPathParams, WalletUpdate,
} from './schemas.js';
import type { TransactionsService } from './transactions.js';
import { externalIdOf } from './transactions.js';
import type { TransfersService } from './transfers.js';
import type { VaultsService } from './vaults.js';
import type { CustodyWebhooks } from './webhooks.js';


/** The provider-side externalId: derived from the caller's Idempotency-Key, else fresh (no retry protection). */
function externalIdFor(request: FastifyRequest): string {
  const header = request.headers['idempotency-key'];
  const key = header === undefined ? undefined : parseIdempotencyKey(header);
  return key === undefined ? randomUUID() : externalIdOf(request.ctx.idempotencyCaller, key);
}

export function custodyRoutes(
  app: FastifyInstance,
  deps: { vaults: VaultsService; transactions: TransactionsService; transfers: TransfersService; evmChainId: number },
): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { vaults, transactions, transfers } = deps;

  r.post(
    '/evm-vaults',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags: ['Wallets'],
        summary: 'Create a custodial vault at custody-a with an EVM wallet (API key or admin: for body.userId; a user: for itself)',
        body: CreateVaultBody,
        response: { 201: Vault, ...errorResponses(403, 404, 409, 502, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await vaults.create(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.get(
    '/evm-vaults',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags: ['Wallets'],
        summary: "A vault by id or by an address of its wallets (a user: its own only; another's is 404)",
        querystring: VaultQuery,
        response: { 200: Vault, ...errorResponses(403, 404) },
      },
    },
    async (request) => vaults.find(contextOf(request, Access.apiKeyOrUser), request.query, deps.evmChainId),
  );

  r.post(
    '/custody-a/vaults/:vaultId/wallets/:walletId/transactions/transfer',
    {
      config: { auth: Access.apiKeyOrUser, idempotency: 'optional' },
      schema: {
        tags: ['Custody (custody-a)'],
        summary: 'Transfer from a vault wallet (Idempotency-Key header: a retry never sends twice; the same key with another body is 409)',
        params: WalletPathParams,
        body: TransferBody,
        headers: IdempotencyKeyHeader,
        response: { 201: Transaction, ...errorResponses(403, 404, 409, 502, 503) },
      },
    },
    async (request, reply) => {
      const { vaultId, walletId } = request.params;
      return reply.status(201).send(await transactions.transfer(contextOf(request, Access.apiKeyOrUser), vaultId, walletId, request.body, externalIdFor(request)));
    },
  );

  r.put(
    '/custody-a/vaults/:vaultId/wallets/:walletId',
    {
      config: { auth: Access.apiKeyOrUser, idempotency: 'optional' },
      schema: {
        tags: ['Custody (custody-a)'],
        summary: 'Rename and describe a vault wallet; accountSet on an XRPL wallet issues an AccountSet (DefaultRipple)',
        params: WalletPathParams,
        body: UpdateWalletBody,
        response: { 200: WalletUpdate, ...errorResponses(403, 404, 409, 502, 503) },
      },
    },
    async (request) => {
      const { vaultId, walletId } = request.params;
      return transactions.updateWallet(contextOf(request, Access.apiKeyOrUser), vaultId, walletId, request.body, externalIdFor(request));
    },
  );

  r.get(
    '/custody-a/vaults/:vaultId/wallets/:walletId/transactions/:transactionId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags: ['Custody (custody-a)'],
        summary: 'A transaction and its current status (refreshed from the provider until final)',
        params: TransactionPathParams,
        response: { 200: Transaction, ...errorResponses(403, 404, 502, 503) },
      },
    },
    async (request) => {
      const { vaultId, walletId, transactionId } = request.params;
      return transactions.get(contextOf(request, Access.apiKeyOrUser), vaultId, walletId, transactionId);
    },
  );

  r.post(
    '/non-custodial-evm/transfers',
    {
      config: { auth: Access.user, idempotency: 'required', idempotencyBodyField: 'idempotentId' },
      schema: {
        tags: ['Transfers'],
        summary: "Transfer from the caller's wallet through the named custody provider, with travel-rule data; idempotentId replays the first answer",
        body: NonCustodialTransferBody,
        response: { 201: Transfer, ...errorResponses(403, 409, 502, 503) },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await transfers.create(contextOf(request, Access.user), request.body));
    },
  );

  r.get(
    '/non-custodial-evm/transfers',
    {
      config: { auth: Access.user },
      schema: { tags: ['Transfers'], summary: "The caller's transfers, newest first", querystring: TransferListQuery, response: { 200: TransferList, ...errorResponses(403) } },
    },
    async (request) => transfers.list(request.tenant.id, contextOf(request, Access.user).userId, request.query),
  );

  r.get(
    '/custody-a/transfers',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags: ['Transfers'],
        summary: "The tenant's transfers, newest first, with their recorded statuses and chain hashes (an admin or the back end; filters: status, userId)",
        querystring: AdminTransferListQuery,
        response: { 200: AdminTransferList, ...errorResponses(403) },
      },
    },
    async (request) => transfers.listForTenant(request.tenant.id, request.query),
  );

  r.get(
    '/custody-a/transfers/:id',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags: ['Transfers'],
        summary: 'A transfer of the tenant with its recorded statuses and chain hashes, as stored (an admin or the back end)',
        params: TransferIdParams,
        response: { 200: AdminTransfer, ...errorResponses(403, 404) },
      },
    },
    async (request) => transfers.getForTenant(request.tenant.id, request.params.id),
  );

  r.get(
    '/non-custodial-evm/transfers/:id',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags: ['Transfers'],
        summary: "A transfer and its status (a user: its own; the travel-rule questionnaire only for the tenant's API key or an admin)",
        params: TransferIdParams,
        response: { 200: Transfer, ...errorResponses(403, 404, 502, 503) },
      },
    },
    async (request) => transfers.get(contextOf(request, Access.apiKeyOrUser), request.params.id),
  );
}

const WebhookBody = Type.Object({ id: Type.String({ maxLength: 100 }), type: Type.String({ maxLength: 100 }), data: Type.Unknown() }, { additionalProperties: true });

/** custody-a's webhooks, outside tenancy: the tenant in the path, the P-256 signature checked on the exact bytes first. */
export async function custodyWebhookRoutes(app: FastifyInstance, deps: { webhooks: CustodyWebhooks }): Promise<void> {
  keepRawJsonBody(app, { bodyLimit: 64 * 1024 });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/custody-a/webhooks/:tenantId',
    {
      config: { tenancy: false },
      schema: {
        tags: ['Custody (custody-a)'],
        summary: 'custody-a webhooks: ECDSA P-256 over `${timestamp}.${body}` (x-custody-signature, x-custody-timestamp; docs/providers.md)',
        security: [{ webhookSignature: [] }],
        params: Type.Object({ tenantId: Type.String({ format: 'uuid' }) }),
        body: WebhookBody,
        response: { 200: Type.Object({ received: Type.Literal(true) }), ...errorResponses(401, 503) },
      },
      preValidation: async (request) => {
        const tenantId = String((request.params as { tenantId?: unknown }).tenantId ?? '').toLowerCase();
        await deps.webhooks.verify(tenantId, (request.rawBody ?? Buffer.alloc(0)).toString('utf8'), request.headers);
      },
    },
    async (request) => {
      await deps.webhooks.handle(request.params.tenantId.toLowerCase(), request.body as { type: string; data: unknown }, (request.rawBody ?? Buffer.alloc(0)).toString('utf8'), request.headers);
      return { received: true as const };
    },
  );
}
