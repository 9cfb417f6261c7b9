import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { mapConstraintErrors } from '../../platform/db/pg-errors.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { randomToken, safeEqual, sha256Hex } from '../../platform/crypto/hash.js';
import type { TenantContext } from '../../platform/http/guards.js';
import { TenantErrors } from './errors.js';
import type { TenantsRepo } from './repo.js';
import type { ApiKeyRow } from '../../platform/tenancy/table.js';
import { KEY_SCOPES } from '../../platform/http/key-scopes.js';

// bst_<key id, 32 hex>_<secret, 32 random bytes base64url>
const API_KEY_RE = /^bst_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
const TENANT_CACHE_TTL_MS = 60_000;
const TENANT_CACHE_MAX = 10_000;
/** How long a preflight's "does any tenant admit this origin" is kept per instance. */
const ORIGIN_CACHE_TTL_MS = 30_000;
const ORIGIN_CACHE_MAX = 10_000;

/** An origin as browsers send it (`https://app.example.com`, port only when not the default), or undefined. */
export function normalizeOrigin(input: string): string | undefined {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  return url.origin;
}

/** The origins a tenant admits: its own list when set, else the origin of its app URL. */
export function tenantOrigins(settings: Record<string, unknown>): { origins: string[]; source: 'set' | 'app-url' | 'none' } {
  if (Array.isArray(settings.corsOrigins)) return { origins: settings.corsOrigins.filter((o): o is string => typeof o === 'string'), source: 'set' };
  if (typeof settings.appUrl === 'string') {
    try {
      return { origins: [new URL(settings.appUrl).origin], source: 'app-url' };
    } catch {
      return { origins: [], source: 'none' };
    }
  }
  return { origins: [], source: 'none' };
}

function uuidFromHex(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface CreatedApiKey {
  keyId: string;
  apiKey: string;
}

/** What a caller may choose for a new key. */
export interface ApiKeyOptions {
  name?: string;
  scopes?: string[];
  expiresAt?: Date;
}

/** A key as the API lists it: never its secret. */
export interface ApiKeyView {
  id: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  rotatedFrom: string | null;
}

/** How often a key's last use is written (per key and instance). */
export const API_KEY_TOUCH_INTERVAL_MS = 60_000;
/** The longest overlap a rotation grants the old key. */
export const MAX_ROTATION_OVERLAP_SEC = 30 * 24 * 3600;

/** The public start of a key (`bst_` and the first 8 hex of its id): enough to tell keys apart. */
export function apiKeyPrefix(keyId: string): string {
  return `bst_${keyId.replace(/-/g, '').slice(0, 8)}`;
}

function viewOf(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: apiKeyPrefix(row.id),
    scopes: row.scopes && row.scopes.length > 0 ? row.scopes : ['all'],
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    rotatedFrom: row.rotatedFrom,
  };
}

/** Scopes as stored: known names only, no duplicates; `all` alone (or nothing) is stored as null. */
function normalizeScopes(scopes: string[] | undefined): string[] | null {
  if (scopes === undefined) return null;
  const list = [...new Set(scopes)];
  if (list.length === 0) throw TenantErrors.invalidScopes();
  for (const scope of list) if (!(KEY_SCOPES as readonly string[]).includes(scope)) throw TenantErrors.invalidScopes();
  if (list.includes('all') && list.length > 1 && !list.includes('read-only')) throw TenantErrors.invalidScopes();
  return list.length === 1 && list[0] === 'all' ? null : list;
}

export function createTenantsService(deps: { repo: TenantsRepo; clock: Clock }) {
  const { repo, clock } = deps;
  // Tenants change rarely and are read on every request: a short-lived cache of hits.
  const cache = new Map<string, { tenant: TenantContext; expires: number }>();
  const originCache = new Map<string, { allowed: boolean; expires: number }>();

  // When each key's last use was last written on this instance (bounded; cleared when full).
  const touched = new Map<string, number>();

  async function issueApiKey(
    tenantId: string,
    name?: string,
    extra: { scopes?: string[] | null; expiresAt?: Date | null; rotatedFrom?: string } = {},
    tx?: DbOrTx,
  ): Promise<CreatedApiKey & { row: ApiKeyRow }> {
    const keyId = newId();
    const secret = randomToken(32);
    const row = await repo.insertApiKey(tenantId, { id: keyId, secretHash: sha256Hex(secret), name, ...extra }, tx);
    return { keyId, apiKey: `bst_${keyId.replace(/-/g, '')}_${secret}`, row };
  }

  function checkExpiry(expiresAt: Date | undefined): void {
    if (expiresAt && expiresAt.getTime() <= clock.now().getTime()) throw TenantErrors.invalidExpiry();
  }

  const service = {
    async createTenant(name: string): Promise<{ tenantId: string; keyId: string; apiKey: string }> {
      const trimmed = name.trim();
      if (trimmed.length < 1 || trimmed.length > 100 || /[\u0000-\u001f]/.test(trimmed)) throw TenantErrors.invalidName();
      const tenant = await mapConstraintErrors(() => repo.insertTenant({ id: newId(), name: trimmed }), {
        tenants_name_unique: TenantErrors.nameTaken,
      });
      const { keyId, apiKey } = await issueApiKey(tenant.id, 'initial');
      return { tenantId: tenant.id, keyId, apiKey };
    },

    async findTenantByName(name: string) {
      return repo.findTenantByName(name);
    },

    async createApiKey(tenantId: string, name?: string): Promise<CreatedApiKey> {
      if (!(await repo.findTenant(tenantId))) throw TenantErrors.notFound();
      const { keyId, apiKey } = await issueApiKey(tenantId, name);
      return { keyId, apiKey };
    },

    /** The tenant's live keys (not revoked), as the API lists them. */
    async listApiKeys(tenantId: string): Promise<ApiKeyView[]> {
      return (await repo.listApiKeys(tenantId)).map(viewOf);
    },

    /** A new key with optional scopes and expiry; its secret is in the answer only. */
    async issueApiKey(tenantId: string, options: ApiKeyOptions, tx?: DbOrTx): Promise<ApiKeyView & { apiKey: string }> {
      checkExpiry(options.expiresAt);
      const scopes = normalizeScopes(options.scopes);
      const { apiKey, row } = await issueApiKey(tenantId, options.name, { scopes, expiresAt: options.expiresAt ?? null }, tx);
      return { ...viewOf(row), apiKey };
    },

    /**
     * A new key with the old one's name and scopes (and `expiresAt` when given); the old key
     * stays valid `overlapSeconds` more (0: refused at once), then is refused.
     */
    async rotateApiKey(
      tenantId: string,
      keyId: string,
      options: { overlapSeconds: number; expiresAt?: Date },
      tx?: DbOrTx,
    ): Promise<ApiKeyView & { apiKey: string; previousKeyExpiresAt: string }> {
      checkExpiry(options.expiresAt);
      const old = await repo.findLiveApiKey(tenantId, keyId, tx);
      if (!old || (old.expiresAt && old.expiresAt.getTime() <= clock.now().getTime())) throw TenantErrors.apiKeyNotFound();
      const until = new Date(clock.now().getTime() + options.overlapSeconds * 1000);
      if (!(await repo.expireApiKeyBy(tenantId, keyId, until, tx))) throw TenantErrors.apiKeyNotFound();
      const { apiKey, row } = await issueApiKey(tenantId, old.name ?? undefined, { scopes: old.scopes, expiresAt: options.expiresAt ?? null, rotatedFrom: old.id }, tx);
      const previous = old.expiresAt && old.expiresAt < until ? old.expiresAt : until;
      return { ...viewOf(row), apiKey, previousKeyExpiresAt: previous.toISOString() };
    },

    /** The tenant's app URL: mail links open `${appUrl}/verify-email?...` instead of Bastion's pages. */
    async setAppUrl(tenantId: string, url: string): Promise<void> {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw TenantErrors.invalidAppUrl();
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw TenantErrors.invalidAppUrl();
      const row = await repo.findTenant(tenantId);
      if (!row) throw TenantErrors.notFound();
      await repo.updateSettings(tenantId, { ...row.settings, appUrl: parsed.toString().replace(/\/+$/, '') });
      cache.delete(tenantId);
      originCache.clear();
    },

    /**
     * The browser origins the tenant's apps call from (CORS). `null` goes back to the default,
     * the origin of the app URL; an empty list admits none.
     */
    async setCorsOrigins(tenantId: string, origins: string[] | null): Promise<{ origins: string[]; source: 'set' | 'app-url' | 'none' }> {
      let list: string[] | undefined;
      if (origins !== null) {
        list = [];
        for (const origin of origins) {
          const normalized = origin.trim() === '*' ? undefined : normalizeOrigin(origin);
          if (!normalized) throw TenantErrors.invalidCorsOrigin(origin);
          if (!list.includes(normalized)) list.push(normalized);
        }
        if (list.length > 50) throw TenantErrors.invalidCorsOrigin(`${list.length} origins (at most 50)`);
      }
      const row = await repo.findTenant(tenantId);
      if (!row) throw TenantErrors.notFound();
      const { corsOrigins: _old, ...rest } = row.settings;
      const settings = list === undefined ? rest : { ...rest, corsOrigins: list };
      await repo.updateSettings(tenantId, settings);
      cache.delete(tenantId);
      originCache.clear();
      return tenantOrigins(settings);
    },

    async corsOrigins(tenantId: string): Promise<{ origins: string[]; source: 'set' | 'app-url' | 'none' }> {
      const row = await repo.findTenant(tenantId);
      if (!row) throw TenantErrors.notFound();
      return tenantOrigins(row.settings);
    },

    /** True when the tenant admits the origin (from the cached tenant). */
    async tenantAllowsOrigin(tenantId: string, origin: string): Promise<boolean> {
      const tenant = await service.findTenant(tenantId);
      return tenant !== undefined && tenantOrigins(tenant.settings).origins.includes(origin);
    },

    /** True when some tenant admits the origin (preflights, which carry no tenant); kept 30 s. */
    async anyTenantAllowsOrigin(origin: string): Promise<boolean> {
      const now = clock.now().getTime();
      const hit = originCache.get(origin);
      if (hit && hit.expires > now) return hit.allowed;
      const allowed = normalizeOrigin(origin) === origin && (await repo.anyTenantAdmitsOrigin(origin));
      if (originCache.size >= ORIGIN_CACHE_MAX) originCache.clear();
      originCache.set(origin, { allowed, expires: now + ORIGIN_CACHE_TTL_MS });
      return allowed;
    },

    async revokeApiKey(tenantId: string, keyId: string, tx?: DbOrTx): Promise<void> {
      if (!(await repo.revokeApiKey(tenantId, keyId, clock.now(), tx))) throw TenantErrors.apiKeyNotFound();
    },

    /** The tenant for a request, from a short-lived cache. */
    async findTenant(id: string): Promise<TenantContext | undefined> {
      const now = clock.now().getTime();
      const hit = cache.get(id);
      if (hit && hit.expires > now) return hit.tenant;
      const row = await repo.findTenant(id);
      if (!row) {
        cache.delete(id);
        return undefined;
      }
      if (cache.size >= TENANT_CACHE_MAX) cache.clear();
      const tenant = { id: row.id, name: row.name, settings: row.settings };
      cache.set(id, { tenant, expires: now + TENANT_CACHE_TTL_MS });
      return tenant;
    },

    /** The key id when `rawKey` is a live API key of `tenantId` (see checkApiKey). */
    async verifyApiKey(tenantId: string, rawKey: string): Promise<string | undefined> {
      return (await service.checkApiKey(tenantId, rawKey))?.keyId;
    },

    /**
     * The key id and scopes when `rawKey` is a live, unexpired API key of `tenantId`; compares
     * the secret in constant time. Records the key's last use at most once a minute per key
     * and instance (API_KEY_TOUCH_INTERVAL_MS), so requests do not each write.
     */
    async checkApiKey(tenantId: string, rawKey: string): Promise<{ keyId: string; scopes: string[] | null } | undefined> {
      const match = API_KEY_RE.exec(rawKey);
      if (!match) return undefined;
      const keyId = uuidFromHex(match[1]!);
      const row = await repo.findLiveApiKey(tenantId, keyId);
      // Hash even when the key is unknown, so timing does not tell which key ids exist.
      const presented = sha256Hex(match[2]!);
      const ok = safeEqual(presented, row?.secretHash ?? '0'.repeat(64));
      if (!row || !ok) return undefined;
      const now = clock.now().getTime();
      if (row.expiresAt && row.expiresAt.getTime() <= now) return undefined;
      const last = touched.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0;
      if (now - last >= API_KEY_TOUCH_INTERVAL_MS) {
        if (touched.size >= 10_000) touched.clear();
        touched.set(row.id, now);
        await repo.touchApiKey(tenantId, row.id, new Date(now));
      }
      return { keyId: row.id, scopes: row.scopes && row.scopes.length > 0 ? row.scopes : null };
    },
  };
  return service;
}

export type TenantsService = ReturnType<typeof createTenantsService>;
