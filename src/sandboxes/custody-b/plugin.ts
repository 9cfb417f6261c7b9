import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
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

  return {
    baseUrl,
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
