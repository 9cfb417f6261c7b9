import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Address } from 'viem';
import { Access } from '../../platform/http/access.js';
import { contextOf, type UserContext } from '../../platform/http/context.js';
import { AppError } from '../../platform/http/errors.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CustodyBFundBody, CustodyBFunded, FAUCET_TAGS, FaucetErrors, faucetAmount, fundEvm, fundXrpl, type Funded } from '../faucet.js';
import { isXrplNetwork } from './xrpl.js';
import type { CustodyBConnection } from '../../providers/custody-b/port.js';
import { authEndpoints } from './auth-endpoints.js';
import { hashToken, randomId, SANDBOX_PREFIX, type CustodyBSandboxOptions, type SandboxContext } from './context.js';
import { createSandboxStore } from './store.js';
import { walletEndpoints } from './wallet-endpoints.js';
import { createBroadcasts } from './broadcasts.js';

export type { CustodyBSandboxOptions } from './context.js';
export { SANDBOX_PREFIX } from './context.js';

interface ServiceAccount {
  serviceToken: string;
  serviceCredId: string;
  servicePrivateKeyPem: string;
}

const orgContext = (orgId: string) => `custody-b-sandbox:${orgId}`;

/**
 * The built-in custody-b provider: the provider's HTTP protocol (docs/providers.md) under
 * /sandbox/custody-b, with its state in the database. An organisation is opened per tenant on
 * first use, with a service account (bearer token and an Ed25519 key credential) whose
 * credentials the sandbox hands to the tenant's adapter, as the provider's dashboard would.
 */
export function createCustodyBSandbox(options: CustodyBSandboxOptions) {
  const store = createSandboxStore(options.db);
  const baseUrl = () => `${options.publicBaseUrl()}${SANDBOX_PREFIX}`;
  const ctx: SandboxContext = {
    options,
    store,
    broadcasts: createBroadcasts(options, store),
    rp() {
      const url = new URL(options.publicBaseUrl());
      return { id: url.hostname, origin: url.origin };
    },
  };

  async function openOrg(tenantId: string): Promise<void> {
    const orgId = randomId('or');
    const serviceUserId = randomId('us');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const account: ServiceAccount = {
      serviceToken: `svc_${randomBytes(32).toString('base64url')}`,
      serviceCredId: randomBytes(16).toString('base64url'),
      servicePrivateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const now = options.clock.now();
    // The organisation row goes in last, so that once it is visible its service account works;
    // a concurrent opening that loses leaves an unused account behind, never a broken one.
    await store.insertUser({ id: serviceUserId, orgId, kind: 'ServiceAccount', username: `service@${orgId}`, externalId: null, status: 'registered', createdAt: now });
    await store.insertCredential({
      orgId,
      credId: account.serviceCredId,
      uuid: randomId('cr'),
      userId: serviceUserId,
      kind: 'Key',
      name: 'service account key',
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      counter: 0,
      createdAt: now,
    });
    await store.insertToken({ tokenHash: hashToken(account.serviceToken), orgId, userId: serviceUserId, kind: 'service', expiresAt: null, createdAt: now });
    await store.insertOrg({
      orgId,
      tenantId,
      appId: randomId('ap'),
      sealedServiceAccount: options.secrets.encrypt(JSON.stringify(account), orgContext(orgId)),
      serviceUserId,
      createdAt: now,
    });
  }

  /**
   * The faucet: pays a wallet of the tenant's organisation (EVM: from a development account of
   * the local chain; XRPL: from the ledger's faucet). A wallet the organisation lacks is 404.
   */
  async function fund(tenantId: string, walletId: string, amount: (symbol: 'ETH' | 'XRP') => string): Promise<Funded> {
    const org = await store.orgByTenant(tenantId);
    const wallet = org ? await store.wallet(org.orgId, walletId) : undefined;
    if (!wallet) throw new AppError(404, 'WALLET_NOT_FOUND', 'No custody-b wallet of the caller has this address');
    return isXrplNetwork(wallet.network)
      ? fundXrpl(options.xrplLedger, wallet.address, amount('XRP'))
      : fundEvm(await options.evmChain(), wallet.address as Address, amount('ETH'));
  }

  return {
    baseUrl,
    fund,
    /**
     * POST /sandbox/custody-b/fund `{address, amount}` (registered in the tenant scope while
     * sandboxes are served; the wallet owner's bearer token): the sandbox's faucet for one of the
     * caller's custody-b wallets, `amount` ETH (at most 10) or XRP (at most 1000) by its chain.
     * A tenant pointed at a real custody-b is 409 FAUCET_NOT_SANDBOX; `walletOf` (the module's)
     * finds the caller's wallet by address.
     */
    faucetRoutes(app: FastifyInstance, deps: { walletOf: (ctx: UserContext, address: string) => Promise<{ providerRef: string }> }): void {
      app.withTypeProvider<TypeBoxTypeProvider>().post(
        `${SANDBOX_PREFIX}/fund`,
        {
          config: { auth: Access.user },
          schema: {
            tags: FAUCET_TAGS,
            summary: "Sandbox only: fund one of the caller's custody-b wallets from the sandbox's faucet (ETH or XRP by its chain)",
            body: CustodyBFundBody,
            response: { 200: CustodyBFunded, ...errorResponses(403, 404, 409, 503) },
          },
        },
        async (request) => {
          const ctx = contextOf(request, Access.user);
          if (!(await options.onSandbox(ctx.tenantId))) throw FaucetErrors.notSandbox('custody-b');
          const wallet = await deps.walletOf(ctx, request.body.address);
          const funded = await fund(ctx.tenantId, wallet.providerRef, (symbol) => faucetAmount(request.body.amount, symbol, 'body.amount'));
          return { address: funded.address, symbol: funded.symbol, amount: funded.amount, hash: funded.hash, balance: funded.balance };
        },
      );
    },
    /** Registers the provider's endpoints (outside tenancy and OpenAPI). */
    async routes(app: FastifyInstance): Promise<void> {
      ctx.broadcasts.registerFlow();
      await app.register(async (scope) => {
        authEndpoints(scope, ctx);
        walletEndpoints(scope, ctx);
      });
    },
    /** The tenant's connection to the sandbox (its organisation is opened on first use). */
    async connection(tenantId: string): Promise<CustodyBConnection> {
      let org = await store.orgByTenant(tenantId);
      if (!org) {
        await openOrg(tenantId);
        org = await store.orgByTenant(tenantId);
      }
      if (!org) throw new Error('custody-b sandbox: the organisation could not be opened');
      const account = JSON.parse(await options.secrets.decrypt(org.sealedServiceAccount, orgContext(org.orgId))) as ServiceAccount;
      return { baseUrl: baseUrl(), appId: org.appId, ...account };
    },
  };
}

export type CustodyBSandbox = ReturnType<typeof createCustodyBSandbox>;
