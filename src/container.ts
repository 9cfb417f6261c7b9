import type { PlatformOptions } from './platform/module/platform.js';
import { createPlatform } from './platform/module/platform.js';
import type { BastionModule } from './platform/module/module.js';
import { createAccreditationsModule } from './modules/accreditations/module.js';
import { createAuditModule } from './modules/audit/module.js';
import { createAuthModule } from './modules/auth/module.js';
import { createBankLinkModule } from './modules/bank-link/module.js';
import { createCustodyModule } from './modules/custody/module.js';
import { createCustodyBModule } from './modules/custody-b/module.js';
import { createStorage } from './providers/storage/select.js';
import { createDocumentsModule, type DocumentsOptions } from './modules/documents/module.js';
import { createEntitiesModule } from './modules/entities/module.js';
import { createEventsModule } from './modules/events/module.js';
import { createIdentityModule } from './modules/identity/module.js';
import { createKycModule } from './modules/kyc/module.js';
import { createTenantsModule } from './modules/tenants/module.js';
import { createUsersModule } from './modules/users/module.js';
import { createWalletsModule } from './modules/wallets/module.js';
import { createXrplModule, type XrplModuleOptions } from './modules/xrpl/module.js';
import { createChains, type ChainsOptions } from './chains/index.js';
import { custodyA } from './providers/custody/custody-a/index.js';
import { plaid } from './providers/bank-link/plaid/index.js';
import { businessProfileA, businessProfileASandboxAccounts } from './providers/business-profile/business-profile-a/index.js';
import { createCustodyASandbox } from './sandboxes/custody-a/plugin.js';
import { createBankLinkSandbox } from './sandboxes/plaid/plugin.js';
import { businessProfileASandboxRoutes, SANDBOX_PREFIX as BUSINESS_PROFILE_A_SANDBOX } from './sandboxes/business-profile-a/plugin.js';
import { createBusinessProfileASandbox } from './sandboxes/business-profile-a/service.js';
import { idvA } from './providers/idv/idv-a/index.js';
import { idvB } from './providers/idv/idv-b/index.js';
import { createIdvSandbox } from './sandboxes/idv/plugin.js';
import { custodyB } from './providers/custody-b/custody-b/index.js';
import { createCustodyBSandbox } from './sandboxes/custody-b/plugin.js';
import { oidcIdp } from './providers/idp/oidc/index.js';

export interface ContainerOptions extends Omit<PlatformOptions, 'chains'> {
  /** Password hashing concurrency (tests of the bounded queue). */
  passwordPool?: { maxConcurrent?: number; maxQueue?: number };
  /** Documents module settings tests need (loopback imports, a short fetch deadline). */
  documents?: DocumentsOptions;
  /** XRPL tuning (tests: the stand-in closes ledgers fast, requests wait less for finality). */
  xrpl?: XrplModuleOptions & ChainsOptions;
}

/**
 * The composition root: the platform, then the modules in dependency order. Each module
 * wires itself (module.ts); a new module is one line in the list below. The services are
 * also spread onto the container by name, for the CLI, the benchmark and tests.
 */
export async function createContainer(options: ContainerOptions) {
  // The chains are infrastructure: built once here, handed to the modules as platform.chains;
  // their entry in the module list opens the local chains' listeners and reports them in /ready.
  const chains = createChains(options.config, () => platform.logger, { standIn: options.xrpl?.standIn });
  const base = await createPlatform({ ...options, chains: chains.chains });
  const { platform } = base;

  const audit = createAuditModule(platform);
  const tenants = createTenantsModule(platform, { audit: audit.services.audit });
  const users = createUsersModule(platform);
  const auth = await createAuthModule(
    platform,
    { tenants: tenants.services.tenants, users: users.services.users, audit: audit.services.audit },
    { passwordPool: options.passwordPool, loginPerIp: options.rateLimit?.loginPerIp },
  );
  const kyc = createKycModule(platform, { users: users.services.users, audit: audit.services.audit });
  const services = { ...users.services, ...audit.services };
  const wallets = createWalletsModule(platform, services);
  const xrpl = createXrplModule(platform, { ...services, wallets: wallets.services.wallets }, { finalTimeoutMs: options.xrpl?.finalTimeoutMs });
  const documents = createDocumentsModule(platform, { ...services, store: options.documents?.store ?? createStorage(options.config) }, options.documents);
  const accreditations = createAccreditationsModule(platform, {
    users: users.services.users,
    audit: audit.services.audit,
    documentsOwned: (tenantId, userId, ids) => documents.services.documents.ownsAll(tenantId, userId, ids),
  });
  const identity = createIdentityModule(platform, {
    users: users.services.users,
    sources: [kyc.services.kyc.identitySource, accreditations.services.accreditations.identitySource],
  });

  // The built-in provider sandboxes (routes served with SANDBOXES), on the chains they move value on.
  const { evm: evmChain, xrpl: xrplLedger, xrplNetwork } = platform.chains;
  const sandboxes = {
    custodyA: createCustodyASandbox({
      db: platform.db, secrets: platform.secrets, clock: platform.clock, logger: platform.logger, background: platform.background, inFlight: platform.inFlight,
      publicBaseUrl: () => platform.publicBaseUrl(), chains: { evmChain, xrplLedger, xrplNetwork },
    }),
    plaid: createBankLinkSandbox({
      db: platform.db, tx: platform.tx, secrets: platform.secrets, clock: platform.clock, logger: platform.logger, background: platform.background,
      publicBaseUrl: () => platform.publicBaseUrl(),
    }),
    businessProfileA: Object.assign(
      createBusinessProfileASandbox({ db: platform.db, clock: platform.clock, ...businessProfileASandboxAccounts(platform.providerSettings, () => platform.publicBaseUrl()) }),
      { baseUrl: () => `${platform.publicBaseUrl()}${BUSINESS_PROFILE_A_SANDBOX}` },
    ),
    idv: createIdvSandbox({
      // The sandbox's credential store: the secret of a tenant (its client id) whose provider is the sandbox.
      lookupSecret: async (provider, clientId) => {
        if (!platform.config.idvSandbox) return undefined;
        const stored = await platform.providerSettings.find(clientId, 'idv', provider);
        return stored && stored.baseUrl === null ? stored.secrets['webhook-secret'] : undefined;
      },
      publicBaseUrl: () => platform.publicBaseUrl(),
      clock: platform.clock,
    }),
    custodyB: createCustodyBSandbox({
      db: platform.db, secrets: platform.secrets, clock: platform.clock, publicBaseUrl: () => platform.publicBaseUrl(), evmChain, xrplLedger, inFlight: platform.inFlight,
      onSandbox: async (tenantId) => (await platform.providerSettings.stamp(tenantId, 'custody-b', 'custody-b')).sandbox,
    }),
  };
  const sandboxesModule: BastionModule<typeof sandboxes> = {
    name: 'sandboxes',
    services: sandboxes,
    routes: {
      open: async (app) => {
        if (!platform.config.sandboxes) return;
        await sandboxes.custodyA.routes(app);
        await sandboxes.plaid.routes(app);
        await app.register(async (scope) => businessProfileASandboxRoutes(scope, sandboxes.businessProfileA));
        // IDV_SANDBOX=off removes the identity-verification sandbox alone.
        if (platform.config.idvSandbox) await sandboxes.idv.routes(app);
        await sandboxes.custodyB.routes(app);
      },
    },
  };

  // The providers, one line each (docs/architecture.md, "Providers"): modules reach them through platform.providers.
  platform.providers.register([
    custodyA({ clock: platform.clock, publicBaseUrl: () => platform.publicBaseUrl(), sandbox: sandboxes.custodyA }),
    plaid({ clock: platform.clock, publicBaseUrl: () => platform.publicBaseUrl(), sandbox: sandboxes.plaid }),
    businessProfileA({ sandbox: sandboxes.businessProfileA }),
    idvA({ sandbox: platform.config.idvSandbox ? sandboxes.idv : undefined }),
    idvB({ sandbox: platform.config.idvSandbox ? sandboxes.idv : undefined }),
    custodyB({ clock: platform.clock, localChains: { evmChainId: platform.config.evm.chainId, xrplNetwork }, sandbox: sandboxes.custodyB }),
    oidcIdp({ clock: platform.clock }),
  ]);

  /** The modules in dependency order; the app registers their routes in this order. */
  const modules: BastionModule[] = [
    tenants,
    users,
    audit,
    auth,
    kyc,
    chains.module,
    wallets,
    xrpl,
    documents,
    accreditations,
    identity,
    createEntitiesModule(platform, services),
    createCustodyModule(platform, { ...services, wallets: wallets.services.wallets, faucet: platform.config.sandboxes ? sandboxes.custodyA : undefined, findTenant: (id) => tenants.services.tenants.findTenant(id) }),
    createEventsModule(platform, services),
    createBankLinkModule(platform, services),
    createCustodyBModule(platform, { ...services, wallets: wallets.services.wallets, faucet: platform.config.sandboxes ? sandboxes.custodyB : undefined }),
    sandboxesModule,
  ];

  const { tenants: tenantsService } = tenants.services;
  const { sessions } = auth.services;
  return {
    ...platform,
    ...tenants.services,
    ...users.services,
    ...audit.services,
    ...auth.services,
    ...kyc.services,
    ...accreditations.services,
    ...identity.services,
    platform,
    modules,
    /** The built-in provider sandboxes (tests configure and inspect them). */
    sandboxes,
    mail: base.mail,
    rateLimit: base.rateLimit,
    guardDeps: {
      findTenant: (id: string) => tenantsService.findTenant(id),
      verifyApiKey: (tenantId: string, raw: string) => tenantsService.checkApiKey(tenantId, raw),
      verifyAccessToken: (token: string) => sessions.verifyAccessToken(token),
    },
    /** Opens the modules' own listeners (the local chains), in order; before the app listens. */
    async listen(): Promise<void> {
      for (const module of modules) await module.listen?.();
    },
    /** Starts the background work of the platform and every module (after listen). */
    start(): void {
      base.start();
      for (const module of modules) module.start?.();
    },
    /** Stops the modules' work in reverse order, then the platform (runner drained, connections closed). */
    async close(): Promise<void> {
      await platform.inFlight.sweeper.stop();
      await platform.background.close();
      for (const module of [...modules].reverse()) await module.stop?.();
      await base.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
