import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { TenantsService } from '../tenants/service.js';
import type { UserRow } from '../users/table.js';
import type { UsersService } from '../users/service.js';
import { authFlowRoutes } from './flows-routes.js';
import { createIdpConfigService } from './idp/config.js';
import { createIdpRepo } from './idp/repo.js';
import { idpRoutes } from './idp/routes.js';
import { createIdpLoginService } from './idp/service.js';
import { createKeyRing } from './keys.js';
import { createAuthMailer } from './mailer.js';
import { createOneTimeRepo } from './one-time-repo.js';
import { createOneTimeService } from './one-time.js';
import { authPages } from './pages.js';
import { createPasskeyRepo } from './passkeys/repo.js';
import { passkeyRoutes } from './passkeys/routes.js';
import { createPasskeyService } from './passkeys/service.js';
import { createPasswordHasher } from './passwords.js';
import { createRecoveryService } from './recovery.js';
import { createAuthRepo } from './repo.js';
import { authRoutes, jwksRoute } from './routes.js';
import { auditSink } from './security-events.js';
import { createAuthService, LOGIN_PER_IP } from './service.js';
import { createSessionService } from './sessions.js';
import { createTokenService } from './tokens.js';
import { createTwoFactorService } from './two-factor.js';
import { createVerificationService } from './verification.js';

export interface AuthModuleOptions {
  /** Password hashing concurrency (tests of the bounded queue). */
  passwordPool?: { maxConcurrent?: number; maxQueue?: number };
  /** Logins per client address per minute (default 30). */
  loginPerIp?: number;
}

/**
 * Authentication: signing keys and tokens, sessions, passwords, email verification, recovery,
 * second factor, passkeys (WebAuthn), and login through each tenant's external OpenID provider.
 */
export async function createAuthModule(
  platform: Platform,
  deps: { tenants: TenantsService; users: UsersService; audit: AuditService },
  options: AuthModuleOptions = {},
) {
  const { db, tx, clock, secrets, limiter, config, logger, background, publicBaseUrl } = platform;
  const { tenants, users } = deps;
  const record = auditSink(deps.audit);

  const keys = createKeyRing({ db, secrets, clock });
  await keys.init();
  const tokens = createTokenService({ keys, clock, issuer: config.tokenIssuer });
  const authRepo = createAuthRepo(db);
  const sessions = createSessionService({ db, repo: authRepo, tx, tokens, secrets, clock, record });
  const passwords = createPasswordHasher(options.passwordPool);
  platform.metrics.gauge(
    'bastion_password_pool_jobs',
    'argon2id jobs (login, sign-up, password change) by state: running, or queued for a worker',
    () => {
      const stats = passwords.stats();
      return [
        { labels: { state: 'running' }, value: stats.running },
        { labels: { state: 'queued' }, value: stats.queued },
      ];
    },
    ['state'],
  );
  const oneTime = createOneTimeService({ repo: createOneTimeRepo(db), clock });
  const mailer = createAuthMailer({ limiter, clock, publicBaseUrl, oneTime });
  const verification = createVerificationService({ tx, users, oneTime, mailer });
  const recovery = createRecoveryService({ tx, clock, users, oneTime, mailer, passwords, repo: authRepo, sessions, record });
  const twoFactor = createTwoFactorService({ tx, clock, users, repo: authRepo, oneTime, mailer, passwords, sessions, record, secrets });
  const startSecondFactor = async (tenantId: string, user: UserRow) => {
    const tenant = await tenants.findTenant(tenantId);
    if (!tenant) throw new Error('tenant vanished during login');
    return twoFactor.startChallenge(tenant, user);
  };
  const auth = createAuthService({
    db,
    repo: authRepo,
    tx,
    users,
    sessions,
    passwords,
    limiter,
    record,
    onRegistered: (builder, tenant, user) => verification.initialMail(builder, tenant, user),
    startSecondFactor,
  });

  const idpRepo = createIdpRepo(db);
  const idpCallbackUrl = () => `${publicBaseUrl()}/auth/idp/callback`;
  const idpConfig = createIdpConfigService({ providerSettings: platform.providerSettings, providers: platform.providers, callbackUrl: idpCallbackUrl });
  const idpLogin = createIdpLoginService({
    repo: idpRepo,
    authRepo,
    tx,
    clock,
    secrets,
    providers: platform.providers,
    users,
    sessions,
    record,
    startSecondFactor,
    callbackUrl: idpCallbackUrl,
    logger,
  });

  const passkeys = createPasskeyService({ repo: createPasskeyRepo(db), clock, users, sessions, record, publicBaseUrl, logger });

  const services = { keys, tokens, sessions, passwords, oneTime, verification, recovery, twoFactor, auth, idpConfig, idpLogin, passkeys };
  const module: BastionModule<typeof services> = {
    name: 'auth',
    services,
    routes: {
      tenant: (scope) => {
        authRoutes(scope, { auth, loginPerIp: options.loginPerIp ?? LOGIN_PER_IP });
        authFlowRoutes(scope, { verification, recovery, twoFactor, background });
        idpRoutes(scope, { login: idpLogin, config: idpConfig });
        passkeyRoutes(scope, { passkeys });
      },
      open: (app) => {
        jwksRoute(app, keys);
        // The pages behind links in mail: a form carries the tenant itself.
        authPages(app, { findTenant: (id) => tenants.findTenant(id), verification, recovery });
      },
    },
    async stop() {
      keys.stop();
      await passwords.close();
    },
  };
  return module;
}
