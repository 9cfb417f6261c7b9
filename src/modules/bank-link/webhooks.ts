import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import type { Clock } from '../../platform/clock.js';
import { safeEqual, sha256Hex } from '../../platform/crypto/hash.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import { WEBHOOK_MAX_AGE_SECONDS, type BankLinkPort, type WebhookKey } from '../../providers/bank-link/port.js';
import { AppError } from '../../platform/http/errors.js';
import { BankLinkErrors, viaProvider } from './errors.js';
import type { BankLinkRepo } from './repo.js';
import type { BankLinkSettingsService } from './settings.js';
import type { BankLinkItemStatus } from './table.js';

type VerifyKey = Awaited<ReturnType<typeof importJWK>>;

const KEY_CACHE_MAX = 1000;
/** A key id the provider did not know is not asked about again for this long (no amplification). */
const MISS_TTL_MS = 60_000;
/** A webhook dated this far in the future is refused too (clock skew allowance). */
const FUTURE_SKEW_SECONDS = 60;

export interface WebhookBody {
  webhook_type: string;
  webhook_code: string;
  item_id?: string;
  error?: { error_code?: string } | null;
  originator_client_id?: string;
  [key: string]: unknown;
}

/** What an item webhook means for the item; undefined: nothing to do. */
function itemChange(body: WebhookBody): { status?: BankLinkItemStatus; errorCode: string | null } | undefined {
  switch (body.webhook_code) {
    case 'ERROR': {
      const code = typeof body.error?.error_code === 'string' ? body.error.error_code : 'UNKNOWN';
      return { status: code === 'ITEM_LOGIN_REQUIRED' ? 'login_required' : undefined, errorCode: code };
    }
    case 'LOGIN_REPAIRED':
      return { status: 'active', errorCode: null };
    case 'PENDING_EXPIRATION':
    case 'PENDING_DISCONNECT':
      return { status: 'pending_expiration', errorCode: null };
    case 'USER_PERMISSION_REVOKED':
    case 'USER_ACCOUNT_REVOKED':
      return { status: 'revoked', errorCode: null };
    default:
      return undefined;
  }
}

/**
 * Provider webhooks: an ES256 JWT in the Plaid-Verification header, its key fetched from the
 * provider by `kid` (cached), issued at most five minutes ago, carrying the SHA-256 of the
 * exact body. Handling is idempotent: a replayed webhook changes nothing and emits nothing.
 */
export function createBankLinkWebhooks(deps: { repo: BankLinkRepo; tx: RunInTx; clock: Clock; port: BankLinkPort; settings: BankLinkSettingsService }) {
  const { repo, tx, clock, port, settings } = deps;
  const keys = new Map<string, { key: VerifyKey; expiredAt: number | null }>();
  const misses = new Map<string, number>();

  async function keyFor(tenantId: string, kid: string) {
    const resolved = await settings.existing(tenantId);
    if (!resolved) throw BankLinkErrors.webhookUnauthorized('no bank-link provider for this tenant');
    const { endpoint } = resolved;
    const cacheKey = `${endpoint.baseUrl}|${endpoint.clientId}|${kid}`;
    let cached = keys.get(cacheKey);
    if (!cached) {
      const missedAt = misses.get(cacheKey);
      if (missedAt !== undefined && clock.now().getTime() - missedAt < MISS_TTL_MS) throw BankLinkErrors.webhookUnauthorized('unknown key id');
      let jwk: WebhookKey;
      try {
        jwk = await port.getWebhookVerificationKey(endpoint, kid);
      } catch {
        if (misses.size >= KEY_CACHE_MAX) misses.delete(misses.keys().next().value!);
        misses.set(cacheKey, clock.now().getTime());
        throw BankLinkErrors.webhookUnauthorized('unknown key id');
      }
      if (jwk.alg !== 'ES256' || jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw BankLinkErrors.webhookUnauthorized('unexpected key type');
      const key = await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK, 'ES256');
      cached = { key, expiredAt: jwk.expired_at };
      if (keys.size >= KEY_CACHE_MAX) keys.delete(keys.keys().next().value!);
      keys.set(cacheKey, cached);
    }
    if (cached.expiredAt !== null && cached.expiredAt * 1000 <= clock.now().getTime()) throw BankLinkErrors.webhookUnauthorized('the key has expired');
    return cached.key;
  }

  return {
    /** Throws a 401 unless the header is a valid, fresh signature of exactly these bytes. */
    async verify(tenantId: string, raw: Buffer, header: unknown): Promise<void> {
      if (typeof header !== 'string' || header.length === 0 || header.length > 4096) throw BankLinkErrors.webhookUnauthorized('missing Plaid-Verification header');
      let kid: unknown;
      let alg: unknown;
      try {
        ({ kid, alg } = decodeProtectedHeader(header));
      } catch {
        throw BankLinkErrors.webhookUnauthorized('malformed token');
      }
      if (alg !== 'ES256') throw BankLinkErrors.webhookUnauthorized('the algorithm must be ES256');
      if (typeof kid !== 'string' || kid.length === 0 || kid.length > 100) throw BankLinkErrors.webhookUnauthorized('missing key id');
      const key = await keyFor(tenantId, kid);
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(header, key, { algorithms: ['ES256'], currentDate: clock.now() }));
      } catch {
        throw BankLinkErrors.webhookUnauthorized('bad signature');
      }
      const age = clock.now().getTime() / 1000 - Number(payload.iat);
      if (typeof payload.iat !== 'number' || age > WEBHOOK_MAX_AGE_SECONDS || age < -FUTURE_SKEW_SECONDS) throw BankLinkErrors.webhookUnauthorized('stale or missing iat');
      const claimed = payload.request_body_sha256;
      if (typeof claimed !== 'string' || !safeEqual(claimed.toLowerCase(), sha256Hex(raw))) throw BankLinkErrors.webhookUnauthorized('the body hash does not match');
    },

    /** Applies a verified webhook. Unknown items, originators and codes are acknowledged and ignored. */
    async handle(tenantId: string, body: WebhookBody): Promise<void> {
      if (body.webhook_type === 'ITEM' && typeof body.item_id === 'string') {
        const change = itemChange(body);
        if (!change) return;
        await tx(async (db) => {
          const item = await repo.findItemByProviderId(tenantId, body.item_id!, db, true);
          if (!item) return;
          const status = change.status ?? item.status;
          if (status === item.status && change.errorCode === item.errorCode) return;
          await repo.updateItem(tenantId, item.id, { status, errorCode: change.errorCode, updatedAt: clock.now() }, db);
          await appendEvent(db, tenantId, 'bank_link.item_updated', { itemId: item.id, userId: item.userId, status, errorCode: change.errorCode, webhookCode: body.webhook_code });
        });
        return;
      }
      if (body.webhook_type === 'TRANSFER' && body.webhook_code === 'ORIGINATOR_DILIGENCE_STATUS_UPDATED' && typeof body.originator_client_id === 'string') {
        const id = body.originator_client_id;
        const known = await repo.findOriginator(tenantId, id);
        const resolved = await settings.existing(tenantId);
        if (!known || !resolved) return;
        // The webhook is a hint: the status is read back from the provider.
        // Unreachable: 502, and the provider delivers the webhook again later. Unknown there: nothing to do.
        const detail = await viaProvider(() => port.getOriginator(resolved.endpoint, id)).catch((error: unknown) => {
          if (error instanceof AppError && error.statusCode === 404) return undefined;
          throw error;
        });
        if (!detail) return;
        await tx(async (db) => {
          const current = await repo.findOriginator(tenantId, id, db);
          if (!current || current.diligenceStatus === detail.diligenceStatus) return;
          await repo.updateOriginator(tenantId, id, { diligenceStatus: detail.diligenceStatus, updatedAt: clock.now() }, db);
          await appendEvent(db, tenantId, 'bank_link.originator_updated', { originatorId: id, diligenceStatus: detail.diligenceStatus });
        });
      }
    },
  };
}

export type BankLinkWebhooks = ReturnType<typeof createBankLinkWebhooks>;
