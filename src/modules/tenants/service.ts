import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { mapConstraintErrors } from '../../platform/db/pg-errors.js';
import { randomToken, safeEqual, sha256Hex } from '../../platform/crypto/hash.js';
import type { TenantContext } from '../../platform/http/guards.js';
import { TenantErrors } from './errors.js';
import type { TenantsRepo } from './repo.js';

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

export function createTenantsService(deps: { repo: TenantsRepo; clock: Clock }) {
  const { repo, clock } = deps;
  // Tenants change rarely and are read on every request: a short-lived cache of hits.
  const cache = new Map<string, { tenant: TenantContext; expires: number }>();
  const originCache = new Map<string, { allowed: boolean; expires: number }>();

  async function issueApiKey(tenantId: string, name?: string): Promise<CreatedApiKey> {
    const keyId = newId();
    const secret = randomToken(32);
    await repo.insertApiKey(tenantId, { id: keyId, secretHash: sha256Hex(secret), name });
    return { keyId, apiKey: `bst_${keyId.replace(/-/g, '')}_${secret}` };
  }

  const service = {
    async createTenant(name: string): Promise<{ tenantId: string; keyId: string; apiKey: string }> {
      const trimmed = name.trim();
      if (trimmed.length < 1 || trimmed.length > 100 || /[\u0000-\u001f]/.test(trimmed)) throw TenantErrors.invalidName();
      const tenant = await mapConstraintErrors(() => repo.insertTenant({ id: newId(), name: trimmed }), {
        tenants_name_unique: TenantErrors.nameTaken,
      });
      const key = await issueApiKey(tenant.id, 'initial');
      return { tenantId: tenant.id, ...key };
    },

    async findTenantByName(name: string) {
      return repo.findTenantByName(name);
    },

    async createApiKey(tenantId: string, name?: string): Promise<CreatedApiKey> {
      if (!(await repo.findTenant(tenantId))) throw TenantErrors.notFound();
      return issueApiKey(tenantId, name);
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

    async revokeApiKey(tenantId: string, keyId: string): Promise<void> {
      if (!(await repo.revokeApiKey(tenantId, keyId, clock.now()))) throw TenantErrors.apiKeyNotFound();
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

    /** The key id when `rawKey` is a live API key of `tenantId`; compares the secret in constant time. */
    async verifyApiKey(tenantId: string, rawKey: string): Promise<string | undefined> {
      const match = API_KEY_RE.exec(rawKey);
      if (!match) return undefined;
      const keyId = uuidFromHex(match[1]!);
      const row = await repo.findLiveApiKey(tenantId, keyId);
      // Hash even when the key is unknown, so timing does not tell which key ids exist.
      const presented = sha256Hex(match[2]!);
      const ok = safeEqual(presented, row?.secretHash ?? '0'.repeat(64));
      return row && ok ? row.id : undefined;
    },
  };
  return service;
}

export type TenantsService = ReturnType<typeof createTenantsService>;
