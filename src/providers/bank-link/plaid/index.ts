import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { Clock } from '../../../platform/clock.js';
import { safeEqual, sha256Hex } from '../../../platform/crypto/hash.js';
import { normalizeAllowEntry } from '../../../platform/http/redirect-allow.js';
import { ProviderSettingsError } from '../../../platform/provider-settings/settings.js';
import { defineProvider } from '../../../platform/providers/define.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { OWN_ORIGINATOR_SETTING as OWN_ORIGINATOR, REDIRECT_ALLOW_SETTING as REDIRECT_ALLOW, VERIFICATION_HEADER, WEBHOOK_MAX_AGE_SECONDS, type BankLinkClient, type WebhookVerifyKey } from '../port.js';
import { createPlaidClient } from './http.js';

/** Where the provider's webhooks for a tenant are to be sent (the route is the bank-link module's). */
export const webhookPath = (tenantId: string) => `/bank-link/webhooks/${tenantId}`;


/** The allow-list as stored: its normalized entries, space-separated; a problem is ProviderSettingsError. */
export function redirectAllowSetting(urls: readonly string[]): string {
  const entries = urls.map((url) => {
    const result = normalizeAllowEntry(url);
    if ('problem' in result) throw new ProviderSettingsError(result.problem);
    return result.entry;
  });
  return entries.join(' ');
}

export const redirectAllowOf = (settings: Record<string, string>): string[] => (settings[REDIRECT_ALLOW] ?? '').split(' ').filter((entry) => entry.length > 0);

const KEY_CACHE_MAX = 1000;
/** A key id the provider did not know is not asked about again for this long (no amplification). */
const MISS_TTL_MS = 60_000;
/** A webhook dated this far in the future is refused too (clock skew allowance). */
const FUTURE_SKEW_SECONDS = 60;

/** What the definition needs of the built-in sandbox: its address, and a client account opened there. */
export interface PlaidSandboxAccess {
  baseUrl(): string;
  /** Opens (or re-keys) the client account, with its account-level webhook URL. */
  provisionClient(client: { clientId: string; secret: string; webhookUrl: string }): Promise<void>;
}

/**
 * bank-link over Plaid's protocol (docs/providers.md, "Bank-account linking"): the official
 * client pointed at the tenant's environment; webhooks are ES256 JWTs over the body's SHA-256,
 * their keys fetched by id and kept by the tenant's port (per settings version).
 */
export function plaid(deps: { clock: Clock; publicBaseUrl: () => string; sandbox?: PlaidSandboxAccess }) {
  const { clock, sandbox } = deps;
  const webhookUrl = (tenantId: string) => `${deps.publicBaseUrl()}${webhookPath(tenantId)}`;
  return defineProvider({
    kind: 'bank-link',
    name: 'plaid',
    description: "bank-account linking (Plaid's protocol); the built-in sandbox unless configured",
    settings: {
      'client-id': { required: true, description: 'the client id of the provider account' },
      environment: { required: false, description: 'sandbox (default) or production: the sandbox originator routes answer only for sandbox' },
      [REDIRECT_ALLOW]: {
        required: false,
        kept: true,
        description: 'the URLs the Link page and the KYB questionnaire may return to, space-separated (each admits its path and below; kept across configure)',
      },
      [OWN_ORIGINATOR]: { required: false, description: "the tenant's own originator (its funding profile); the first one created until named" },
    },
    secrets: { secret: { required: true, description: 'the secret of the provider account' } },
    validate: ({ settings }) => {
      const environment = settings.environment ?? 'sandbox';
      if (environment !== 'sandbox' && environment !== 'production') throw new ProviderSettingsError('--environment must be sandbox or production');
      if (settings[REDIRECT_ALLOW] !== undefined) redirectAllowSetting(redirectAllowOf(settings));
    },
    adapter(config): BankLinkClient {
      const clientId = config.settings['client-id'];
      const secret = config.secrets.secret;
      if (!clientId || !secret) throw ProviderError.notConfigured('bank-link', 'plaid', 'its settings lack client-id or the secret');
      const client = createPlaidClient({ baseUrl: config.baseUrl, clientId, secret });
      const keys = new Map<string, { key: WebhookVerifyKey; expiredAt: number | null }>();
      const misses = new Map<string, number>();
      const bounded = <V>(map: Map<string, V>, key: string, value: V) => {
        if (map.size >= KEY_CACHE_MAX) map.delete(map.keys().next().value!);
        map.set(key, value);
      };
      return {
        environment: config.settings.environment === 'production' ? 'production' : 'sandbox',
        redirectAllow: redirectAllowOf(config.settings),
        ownOriginator: config.settings[OWN_ORIGINATOR] || null,
        isOwnCredential: (input) => {
          const idOk = safeEqual(input.clientId, clientId);
          const secretOk = safeEqual(input.secret, secret);
          return idOk && secretOk;
        },
        createLinkToken: (request) => client.createLinkToken({ ...request, webhook: webhookUrl(config.tenantId) }),
        exchangePublicToken: (publicToken) => client.exchangePublicToken(publicToken),
        getAccounts: (accessToken) => client.getAccounts(accessToken),
        removeItem: (accessToken) => client.removeItem(accessToken),
        createOriginator: (companyName) => client.createOriginator(companyName),
        listOriginators: (page) => client.listOriginators(page),
        getOriginator: (id) => client.getOriginator(id),
        createQuestionnaire: (id, redirectUri) => client.createQuestionnaire(id, redirectUri),
        async webhookKey(keyId) {
          const cached = keys.get(keyId);
          if (cached) return cached;
          const missedAt = misses.get(keyId);
          if (missedAt !== undefined && clock.now().getTime() - missedAt < MISS_TTL_MS) return undefined;
          let jwk;
          try {
            jwk = await client.getWebhookVerificationKey(keyId);
          } catch {
            bounded(misses, keyId, clock.now().getTime());
            return undefined;
          }
          if (jwk.alg !== 'ES256' || jwk.kty !== 'EC' || jwk.crv !== 'P-256') return undefined;
          const made = { key: await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK, 'ES256'), expiredAt: jwk.expired_at };
          bounded(keys, keyId, made);
          return made;
        },
      };
    },
    webhooks: {
      /**
       * The Plaid-Verification header: an ES256 JWT whose key (by `kid`) the provider gives,
       * issued at most five minutes ago (and at most a minute ahead), carrying the SHA-256 of
       * the exact body, compared in constant time.
       */
      async verify(request, { port }) {
        const header = request.headers[VERIFICATION_HEADER];
        if (typeof header !== 'string' || header.length === 0 || header.length > 4096) return false;
        let kid: unknown;
        let alg: unknown;
        try {
          ({ kid, alg } = decodeProtectedHeader(header));
        } catch {
          return false;
        }
        if (alg !== 'ES256' || typeof kid !== 'string' || kid.length === 0 || kid.length > 100) return false;
        const key = await port.webhookKey(kid);
        if (!key || (key.expiredAt !== null && key.expiredAt * 1000 <= clock.now().getTime())) return false;
        let payload: Record<string, unknown>;
        try {
          ({ payload } = await jwtVerify(header, key.key, { algorithms: ['ES256'], currentDate: clock.now() }));
        } catch {
          return false;
        }
        const age = clock.now().getTime() / 1000 - Number(payload.iat);
        if (typeof payload.iat !== 'number' || age > WEBHOOK_MAX_AGE_SECONDS || age < -FUTURE_SKEW_SECONDS) return false;
        const claimed = payload.request_body_sha256;
        return typeof claimed === 'string' && safeEqual(claimed.toLowerCase(), sha256Hex(request.rawBody));
      },
      /**
       * Plaid's webhooks carry no event id, and two events may have the same body (an item's
       * login error, repaired, then failing again). A delivery is known by its signed token:
       * the same bytes sent again are a duplicate; a retry the provider signs anew is applied
       * again, which changes nothing (the module compares states before it writes).
       */
      id: (_payload, request) => `jwt:${sha256Hex(String(request.headers[VERIFICATION_HEADER] ?? ''))}`,
    },
    ...(sandbox
      ? {
          sandbox: {
            /** The tenant's sandbox account is opened (or told the current webhook address) once per adapter. */
            async config(tenantId: string, stored: { settings: Record<string, string>; secrets: Record<string, string> }) {
              const clientId = stored.settings['client-id'] ?? '';
              const secret = stored.secrets.secret ?? '';
              await sandbox.provisionClient({ clientId, secret, webhookUrl: webhookUrl(tenantId) });
              return { baseUrl: sandbox.baseUrl(), settings: stored.settings, secrets: stored.secrets };
            },
            generate: () => ({ settings: { 'client-id': randomBytes(12).toString('hex'), environment: 'sandbox' }, secrets: { secret: randomBytes(15).toString('hex') } }),
          },
        }
      : {}),
    codes: { unreachable: 'BANK_LINK_PROVIDER_UNAVAILABLE', refused: 'BANK_LINK_PROVIDER_ERROR', unauthorized: 'BANK_LINK_PROVIDER_ERROR', malformed_answer: 'BANK_LINK_PROVIDER_ERROR' },
    // Before provider_settings: bank_link_settings.secret_sealed.
    legacyContext: (tenantId) => `bank-link:${tenantId}`,
  });
}
