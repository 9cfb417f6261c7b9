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

  async function issueApiKey(tenantId: string, name?: string): Promise<CreatedApiKey> {
    const keyId = newId();
    const secret = randomToken(32);
    await repo.insertApiKey(tenantId, { id: keyId, secretHash: sha256Hex(secret), name });
    return { keyId, apiKey: `bst_${keyId.replace(/-/g, '')}_${secret}` };
  }

  return {
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
}

export type TenantsService = ReturnType<typeof createTenantsService>;
