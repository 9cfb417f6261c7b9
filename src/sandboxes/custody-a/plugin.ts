import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { isValidClassicAddress } from 'xrpl';
import { parseEvmAddress } from '../../platform/crypto/evm-address.js';
import {
  ACCESS_KEY_HEADER, newEd25519KeyPair, REQUEST_WINDOW_SECONDS, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER, verifyRequest, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER,
} from '../../providers/custody/custody-a/signing.js';
import { XrplLedgerError, type XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import { Access, viewerOf, type Viewer } from '../../platform/http/access.js';
import { AppError } from '../../platform/http/errors.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CustodyAFundBody, CustodyAFunded, CustodyAFundParams, FAUCET_TAGS, faucetAmount, FaucetErrors, fundEvm, fundXrpl, type Funded } from '../faucet.js';
import { newXrplWallet } from './chains.js';
import { SANDBOX_PREFIX, SandboxError, transactionDto, transferDto, walletDto, walletKeyContext, type CustodyASandboxOptions } from './context.js';
import { createExecutor } from './executor.js';
import { createSandboxStore } from './store.js';
import type { SandboxClientRow, SandboxWalletRow } from './table.js';

export type { CustodyASandboxOptions } from './context.js';

type Json = Record<string, unknown>;
const CLIENT_KEY_CONTEXT = (apiKey: string) => `custody-a-sandbox:client:${apiKey}`;
const QUESTIONNAIRE_CONTEXT = (transferId: string) => `custody-a-sandbox:questionnaire:${transferId}`;
const DECIMAL_RE = /^(0|[1-9]\d{0,17})(\.\d{1,18})?$/;

/**
 * A new XRPL wallet is activated as a custodian's testnet wallet is: funded from the ledger's
 * faucet (the stand-in's, or XRPL_FAUCET_URL) with the base reserve and enough to pay fees and
 * try a transfer. A ledger with no faucet leaves it to a payment; a faucet that fails is a 503.
 */
export const XRPL_ACTIVATION_XRP = '10';
async function activateXrplAccount(ledger: XrplLedgerPort, address: string): Promise<void> {
  try {
    await ledger.fundAccount(address, XRPL_ACTIVATION_XRP);
  } catch (error) {
    if (error instanceof XrplLedgerError && error.kind === 'faucet_unavailable') return;
    throw new SandboxError(503, 'LEDGER_UNAVAILABLE', `the XRPL wallet could not be activated: ${(error as Error).message}`);
  }
}

const bad = (message: string) => new SandboxError(400, 'INVALID_REQUEST', message);
const notFound = (what: string) => new SandboxError(404, 'NOT_FOUND', `${what} not found`);

function str(body: Json, field: string, options: { optional?: boolean; max?: number } = {}): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (options.optional) return undefined;
    throw bad(`${field} is required`);
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > (options.max ?? 256)) throw bad(`${field} must be a non-empty string`);
  return value;
}

function positiveQty(value: string, decimals: number, field = 'qty'): string {
  if (!DECIMAL_RE.test(value) || /^0(\.0+)?$/.test(value)) throw bad(`${field} must be a positive decimal string`);
  if ((value.split('.')[1] ?? '').length > decimals) throw bad(`${field} has more than ${decimals} decimals`);
  return value;
}

/**
 * The built-in custody-a provider: its HTTP protocol (docs/providers.md) under
 * /sandbox/custody-a, Ed25519-signed requests checked as the provider checks them, state in
 * the database, value moved for real on the local chains, P-256-signed webhooks.
 */
export function createCustodyASandbox(options: CustodyASandboxOptions) {
  const { clock, secrets } = options;
  const store = createSandboxStore(options.db);
  const executor = createExecutor(options, store);
  const baseUrl = () => `${options.publicBaseUrl()}${SANDBOX_PREFIX}`;

  async function authenticate(request: FastifyRequest, raw: string): Promise<SandboxClientRow> {
    const header = (name: string) => {
      const v = request.headers[name];
      return typeof v === 'string' ? v : undefined;
    };
    const apiKey = header(ACCESS_KEY_HEADER);
    const timestamp = header(TIMESTAMP_HEADER);
    const signature = header(SIGNATURE_HEADER);
    if (!apiKey || !timestamp || !signature) throw new SandboxError(401, 'UNAUTHENTICATED', 'Api-Access-Key, Api-Timestamp and Api-Signature are required');
    const client = await store.findClient(apiKey);
    if (!client) throw new SandboxError(401, 'UNAUTHENTICATED', 'unknown API key');
    const skew = Math.abs(Math.floor(clock.now().getTime() / 1000) - Number(timestamp));
    if (!/^\d{1,12}$/.test(timestamp) || skew > REQUEST_WINDOW_SECONDS) throw new SandboxError(401, 'UNAUTHENTICATED', 'Api-Timestamp is outside the allowed window');
    const path = request.url.slice(SANDBOX_PREFIX.length);
    if (!verifyRequest(client.publicKeyPem, timestamp, request.method, path, raw, signature)) throw new SandboxError(401, 'UNAUTHENTICATED', 'bad request signature');
    return client;
  }

  async function ownWallet(client: SandboxClientRow, vaultId: string, walletId: string): Promise<SandboxWalletRow> {
    const wallet = await store.findWallet(client.apiKey, walletId);
    if (!wallet || wallet.vaultId !== vaultId) throw notFound('wallet');
    return wallet;
  }

  function validDestination(wallet: SandboxWalletRow, address: string): string {
    if (wallet.blockchain === 'ETHEREUM') {
      const evm = parseEvmAddress(address);
      if (!evm) throw bad('destinationAddress is not an EVM address (one case, or a valid EIP-55 checksum)');
      return evm;
    }
    if (!isValidClassicAddress(address)) throw bad('destinationAddress is not an XRPL classic address');
    return address;
  }

  type Handler = (client: SandboxClientRow, params: Record<string, string>, body: Json) => Promise<{ status?: number; body: unknown }>;

  const handlers: Record<string, Handler> = {
    'POST /v2/vaults': async (client, _p, body) => {
      const name = str(body, 'name', { max: 200 })!;
      const row = { id: randomUUID(), apiKey: client.apiKey, name, createdAt: clock.now() };
      await store.insertVault(row);
      return { status: 201, body: { id: row.id, name, createdAt: row.createdAt.toISOString() } };
    },
    'POST /v2/vaults/:vaultId/wallets': async (client, p, body) => {
      if (!(await store.findVault(client.apiKey, p.vaultId!))) throw notFound('vault');
      const blockchain = str(body, 'blockchain')!;
      if (blockchain !== 'ETHEREUM' && blockchain !== 'XRPL') throw bad('blockchain must be ETHEREUM or XRPL');
      const id = randomUUID();
      let address: string;
      let key: string;
      let network: string;
      if (blockchain === 'ETHEREUM') {
        key = generatePrivateKey();
        address = privateKeyToAccount(key as `0x${string}`).address;
        network = String((await options.chains.evmChain()).chainId);
      } else {
        const w = newXrplWallet();
        key = w.seed;
        address = w.address;
        network = await options.chains.xrplNetwork();
        await activateXrplAccount(options.chains.xrplLedger, address);
      }
      const now = clock.now();
      const row: SandboxWalletRow = {
        id, apiKey: client.apiKey, vaultId: p.vaultId!, blockchain, network, address,
        name: str(body, 'name', { max: 200 })!, description: null,
        keySealed: secrets.encrypt(key, walletKeyContext(id)), createdAt: now, updatedAt: now,
      };
      await store.insertWallet(row);
      return { status: 201, body: walletDto(row) };
    },
    'GET /v2/vaults/:vaultId/wallets/:walletId': async (client, p) => ({ body: walletDto(await ownWallet(client, p.vaultId!, p.walletId!)) }),
    'PUT /v2/vaults/:vaultId/wallets/:walletId': async (client, p, body) => {
      const wallet = await ownWallet(client, p.vaultId!, p.walletId!);
      const patch = { name: str(body, 'name', { max: 200 })!, description: str(body, 'description', { optional: true, max: 1000 }) ?? null, updatedAt: clock.now() };
      await store.updateWallet(wallet.id, patch);
      return { body: walletDto({ ...wallet, ...patch }) };
    },
    'POST /v2/vaults/:vaultId/wallets/:walletId/transactions/transfer': async (client, p, body) => {
      const wallet = await ownWallet(client, p.vaultId!, p.walletId!);
      const externalId = str(body, 'externalId')!;
      const destinationAddress = validDestination(wallet, str(body, 'destinationAddress')!);
      const symbol = str(body, 'symbol', { max: 16 })!;
      const contract = str(body, 'contract', { optional: true });
      const sequence = str(body, 'sequence', { optional: true, max: 10 });
      if (wallet.blockchain === 'ETHEREUM') {
        if (sequence !== undefined) throw bad('sequence is for XRPL wallets');
        if (contract === undefined && symbol !== 'ETH') throw bad('symbol must be ETH, or an ERC-20 with its contract');
        if (contract !== undefined && !parseEvmAddress(contract, { checksummedOnly: true })) throw bad('contract must be a checksummed address');
      } else {
        if (symbol !== 'XRP' || contract !== undefined) throw bad('an XRPL wallet sends XRP');
        if (sequence !== undefined && !/^\d{1,10}$/.test(sequence)) throw bad('sequence must be a non-negative integer');
      }
      const qty = positiveQty(str(body, 'qty', { max: 40 })!, wallet.blockchain === 'XRPL' ? 6 : 18);
      const request = { destinationAddress, symbol, qty, ...(contract ? { contract } : {}), ...(sequence ? { sequence } : {}) };
      return createTransaction(client, wallet, externalId, 'TRANSFER', request);
    },
    'POST /v2/vaults/:vaultId/wallets/:walletId/transactions/account-set': async (client, p, body) => {
      const wallet = await ownWallet(client, p.vaultId!, p.walletId!);
      if (wallet.blockchain !== 'XRPL') throw bad('account-set is an XRPL transaction');
      const setFlag = body.setFlag;
      if (typeof setFlag !== 'number' || !Number.isInteger(setFlag) || setFlag < 1 || setFlag > 16) throw bad('setFlag must be an AccountSet flag (1-16)');
      return createTransaction(client, wallet, str(body, 'externalId')!, 'ACCOUNT_SET', { setFlag });
    },
    'GET /v2/vaults/:vaultId/wallets/:walletId/transactions/:transactionId': async (client, p) => {
      await ownWallet(client, p.vaultId!, p.walletId!);
      const row = await store.findTransaction(client.apiKey, p.transactionId!);
      if (!row || row.walletId !== p.walletId) throw notFound('transaction');
      return { body: transactionDto(await executor.refreshTransaction(row)) };
    },
    'POST /v2/transfers': async (client, _p, body) => {
      const source = body.source as Json | undefined;
      const destination = body.destination as Json | undefined;
      if (!source || typeof source !== 'object' || source.type !== 'WALLET') throw bad('source.type must be WALLET');
      if (!destination || typeof destination !== 'object' || destination.type !== 'ADDRESS') throw bad('destination.type must be ADDRESS');
      const wallet = await store.findWallet(client.apiKey, str(source, 'id')!);
      if (!wallet) throw notFound('source wallet');
      if (wallet.blockchain !== 'ETHEREUM') throw bad('transfers move EVM assets');
      const to = validDestination(wallet, str(destination, 'id')!);
      const assetType = str(body, 'assetType', { max: 16 })!;
      if (assetType !== 'ETH') throw bad('assetType must be ETH');
      const amount = positiveQty(str(body, 'amount', { max: 40 })!, 18, 'amount');
      const idempotentId = str(body, 'idempotentId')!;
      const questionnaire = body.transferAmlQuestionnaire;
      const now = clock.now();
      const id = randomUUID();
      const { row, created } = await store.insertTransfer({
        id, apiKey: client.apiKey, idempotentId, sourceWalletId: wallet.id, destinationAddress: to, assetType, amount,
        deductFee: body.deductFeeFromAmountIfSameType === true, memo: str(body, 'transferMemo', { optional: true, max: 500 }) ?? null,
        questionnaireSealed: questionnaire && typeof questionnaire === 'object' ? secrets.encrypt(JSON.stringify(questionnaire), QUESTIONNAIRE_CONTEXT(id)) : null,
        status: 'QUEUED', hash: null, failureReason: null, createdAt: now, updatedAt: now, ...executor.newLease(),
      });
      if (created) executor.startTransfer(row, { client, wallet });
      return { status: created ? 201 : 200, body: { data: transferDto(row) } };
    },
    'GET /v2/transfers/:transferId': async (client, p) => {
      const row = await store.findTransfer(client.apiKey, p.transferId!);
      if (!row) throw notFound('transfer');
      return { body: { data: transferDto(await executor.refreshTransfer(row)) } };
    },
    'GET /v2/webhooks/public-key': async () => ({ body: { publicKey: (await executor.webhookKey()).publicKeyPem } }),
  };

  async function createTransaction(client: SandboxClientRow, wallet: SandboxWalletRow, externalId: string, type: 'TRANSFER' | 'ACCOUNT_SET', request: Json) {
    const now = clock.now();
    const { row, created } = await store.insertTransaction({
      id: randomUUID(), apiKey: client.apiKey, vaultId: wallet.vaultId, walletId: wallet.id, externalId, type, status: 'REQUESTED',
      request, hash: null, lastLedgerSequence: null, failureReason: null, createdAt: now, updatedAt: now, ...executor.newLease(),
    });
    // The same externalId again is the same transaction (answered, never sent twice).
    if (created) executor.startTransaction(row, { client, wallet });
    return { status: created ? 201 : 200, body: transactionDto(row) };
  }

  function send(reply: FastifyReply, error: SandboxError) {
    return reply.code(error.status).header('cache-control', 'no-store').send({ errorCode: error.errorCode, message: error.message });
  }

  /**
   * The faucet: pays a wallet of the tenant's sandbox account (the EVM one from a development
   * account of the local chain, the XRPL one from the ledger's faucet). A wallet the tenant's
   * account does not hold is 404.
   */
  async function fund(tenantId: string, walletId: string, qty: string): Promise<Funded> {
    const client = await store.findClientByLabel(tenantId);
    const wallet = client ? await store.findWallet(client.apiKey, walletId) : undefined;
    if (!wallet) throw new AppError(404, 'WALLET_NOT_FOUND', 'Wallet not found in this vault');
    return wallet.blockchain === 'ETHEREUM'
      ? fundEvm(await options.chains.evmChain(), wallet.address as Address, qty)
      : fundXrpl(options.chains.xrplLedger, wallet.address, qty);
  }

  return {
    baseUrl,
    fund,
    /**
     * POST /sandbox/custody-a/vaults/{vaultId}/fund `{symbol: ETH|XRP, qty}` (registered in the
     * tenant scope while sandboxes are served; the tenant's API key, an admin, or the vault's
     * owner): the sandbox's faucet for a vault's EVM or XRPL wallet, at most 10 ETH / 1000 XRP a
     * request. `walletOf` finds the Bastion vault's wallet of that chain as the caller may see it.
     */
    faucetRoutes(
      app: FastifyInstance,
      deps: {
        /** Whether the tenant is left on this sandbox (a tenant on a real custody-a funds its wallets there: 409). */
        onSandbox: (tenantId: string) => Promise<boolean>;
        walletOf: (tenantId: string, viewer: Viewer, vaultId: string, chain: 'evm' | 'xrpl') => Promise<{ providerWalletId: string; vaultId: string }>;
      },
    ): void {
      app.withTypeProvider<TypeBoxTypeProvider>().post(
        `${SANDBOX_PREFIX}/vaults/:vaultId/fund`,
        {
          config: { auth: Access.apiKeyOrUser },
          schema: {
            tags: FAUCET_TAGS,
            summary: "Sandbox only: fund a vault's EVM (ETH) or XRPL (XRP) wallet from the sandbox's faucet (API key, admin or the vault's owner)",
            params: CustodyAFundParams,
            body: CustodyAFundBody,
            response: { 200: CustodyAFunded, ...errorResponses(403, 404, 409, 503) },
          },
        },
        async (request) => {
          const { symbol } = request.body;
          if (symbol !== 'ETH' && symbol !== 'XRP') throw new AppError(400, 'SYMBOL_UNKNOWN', 'body.symbol must be ETH or XRP');
          const qty = faucetAmount(request.body.qty, symbol, 'body.qty');
          if (!(await deps.onSandbox(request.tenant.id))) throw FaucetErrors.notSandbox('custody-a');
          const wallet = await deps.walletOf(request.tenant.id, viewerOf(request), request.params.vaultId, symbol === 'ETH' ? 'evm' : 'xrpl');
          const funded = await fund(request.tenant.id, wallet.providerWalletId, qty);
          return { vaultId: wallet.vaultId, address: funded.address, symbol, qty, hash: funded.hash, balance: funded.balance };
        },
      );
    },
    /** The webhook headers the sandbox would send with this exact body (tests replay deliveries). */
    async webhookHeaders(body: string): Promise<Record<string, string>> {
      const timestamp = String(Math.floor(clock.now().getTime() / 1000));
      const { privateKeyPem } = await executor.webhookKey();
      return { [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: signWebhook(privateKeyPem, timestamp, body) };
    },
    /**
     * The tenant's account at the sandbox, opened at its first use as signing up would: an
     * API key and an Ed25519 key pair (the sandbox keeps the public half; the private half is
     * kept sealed so the tenant's service can be handed it again), and the webhook URL.
     */
    async credentialsFor(label: string, webhookUrl: string): Promise<{ apiKey: string; signingKey: string }> {
      let client = await store.findClientByLabel(label);
      if (!client) {
        const apiKey = randomBytes(16).toString('hex');
        const pair = newEd25519KeyPair();
        await store.insertClientIfAbsent({ apiKey, label, publicKeyPem: pair.publicKeyPem, privateKeySealed: secrets.encrypt(pair.privateKeyPem, CLIENT_KEY_CONTEXT(apiKey)), webhookUrl, createdAt: clock.now() });
        client = (await store.findClientByLabel(label))!;
      }
      if (client.webhookUrl !== webhookUrl) await store.setWebhookUrl(client.apiKey, webhookUrl);
      return { apiKey: client.apiKey, signingKey: await secrets.decrypt(client.privateKeySealed, CLIENT_KEY_CONTEXT(client.apiKey)) };
    },
    /** Registers the sandbox's routes (outside tenancy and OpenAPI), in their own scope. */
    async routes(app: FastifyInstance): Promise<void> {
      executor.registerFlows();
      await app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => done(null, body));
        for (const [route, handler] of Object.entries(handlers)) {
          const [method, path] = route.split(' ') as ['GET' | 'POST' | 'PUT', string];
          scope.route({
            method,
            url: `${SANDBOX_PREFIX}${path}`,
            config: { tenancy: false },
            schema: { hide: true },
            handler: async (request, reply) => {
              const raw = typeof request.body === 'string' ? request.body : '';
              try {
                const client = await authenticate(request, raw);
                let body: Json = {};
                if (method !== 'GET') {
                  let parsed: unknown;
                  try {
                    parsed = JSON.parse(raw);
                  } catch {
                    throw bad('the body must be a JSON object');
                  }
                  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('the body must be a JSON object');
                  body = parsed as Json;
                }
                const answer = await handler(client, request.params as Record<string, string>, body);
                return reply.code(answer.status ?? 200).header('cache-control', 'no-store').send(answer.body);
              } catch (error) {
                if (error instanceof SandboxError) return send(reply, error);
                throw error;
              }
            },
          });
        }
      });
    },
  };
}

export type CustodyASandbox = ReturnType<typeof createCustodyASandbox>;
