import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { buildContext } from './context.js';
import { AppError, CommonErrors } from './errors.js';
import type { AccessClaims, AuthRequirement, Principal, TenantContext } from './principal.js';

export type { AccessClaims, AuthRequirement, Principal, Role, TenantContext } from './principal.js';
import { areaOfTags, keyAdmits, type KeyArea } from './key-scopes.js';

export interface GuardDeps {
  findTenant(id: string): Promise<TenantContext | undefined>;
  /** The key id and scopes when the raw key is a live, unexpired key of that tenant, otherwise undefined. */
  verifyApiKey(tenantId: string, rawKey: string): Promise<{ keyId: string; scopes: string[] | null } | undefined>;
  /** Returns the claims of a valid access token; throws or returns undefined otherwise. */
  verifyAccessToken(token: string): Promise<AccessClaims | undefined>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route lives outside tenancy (health, JWKS, OpenAPI). Default true. */
    tenancy?: boolean;
    auth?: AuthRequirement;
    /** A public route that reads a bearer of its own kind itself (a mailed token, documented as mailedToken). */
    bearerInHandler?: boolean;
    /** The API-key scope area of the route; by default from its OpenAPI tag (key-scopes.ts). */
    keyScope?: KeyArea;
  }
  interface FastifyRequest {
    tenant: TenantContext;
    principal: Principal | null;
  }
}

const GUARD = Symbol('bastion.guard');

type DeclaredRoutes = Map<string, { auth: AuthRequirement; credentialInHandler: boolean }>;

/**
 * Every tenant-scoped route declared per app ('PATCH /users/{id}' -> its requirement), for
 * introspection. Keyed by the app's HTTP server, which all its encapsulated scopes share, so
 * two apps in one process (test files sharing a worker) never see each other's routes.
 */
const declaredByApp = new WeakMap<object, DeclaredRoutes>();

/** The tenant-scoped routes this app declared, named as OpenAPI names them (tests check each has its cases). */
export function declaredTenantRoutes(app: FastifyInstance): ReadonlyMap<string, { auth: AuthRequirement; credentialInHandler: boolean }> {
  return declaredByApp.get(app.server) ?? new Map();
}
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BEARER_RE = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i;

async function resolveTenant(request: FastifyRequest, deps: GuardDeps): Promise<void> {
  const header = request.headers['x-tenant-id'];
  if (header === undefined || header === '') throw CommonErrors.tenantRequired();
  if (typeof header !== 'string' || !UUID_RE.test(header)) throw CommonErrors.tenantUnknown();
  const tenant = await deps.findTenant(header.toLowerCase());
  if (!tenant) throw CommonErrors.tenantUnknown();
  request.tenant = tenant;
}

async function authenticate(request: FastifyRequest, requirement: AuthRequirement, area: KeyArea, deps: GuardDeps): Promise<void> {
  if (requirement === 'public') return;
  const tenantId = request.tenant.id;
  const apiKey = request.headers['x-api-key'];
  const authorization = request.headers.authorization;

  if (apiKey !== undefined) {
    if (typeof apiKey !== 'string') throw CommonErrors.invalidApiKey();
    const key = await deps.verifyApiKey(tenantId, apiKey);
    if (!key) throw CommonErrors.invalidApiKey();
    request.principal = { kind: 'apiKey', tenantId, keyId: key.keyId, scopes: key.scopes };
    if (!requirement.apiKey) throw CommonErrors.forbidden();
    // A key limited by its scopes: the route's area, and writes for a read-only key.
    if (!keyAdmits(key.scopes, area, request.method)) throw CommonErrors.forbidden();
    return;
  }
  if (authorization !== undefined) {
    const match = BEARER_RE.exec(authorization);
    if (!match?.[1]) throw CommonErrors.invalidToken();
    let claims: AccessClaims | undefined;
    try {
      claims = await deps.verifyAccessToken(match[1]);
    } catch (error) {
      if (error instanceof AppError && error.statusCode !== 401) throw error;
      throw CommonErrors.invalidToken();
    }
    // A token of one tenant presented with another tenant's header is not a credential here.
    if (!claims || claims.tid !== tenantId) throw CommonErrors.invalidToken();
    request.principal = { kind: 'user', tenantId, userId: claims.sub, role: claims.role, sessionId: claims.sid };
    if (!requirement.bearer) throw CommonErrors.forbidden();
    if (requirement.bearer === 'admin' && claims.role !== 'admin') throw CommonErrors.forbidden();
    return;
  }
  throw CommonErrors.credentialsRequired();
}

/** OpenAPI security alternatives for a route, from its auth requirement. */
function securityFor(requirement: AuthRequirement): Array<Record<string, string[]>> {
  if (requirement === 'public') return [{ tenant: [] }];
  const alternatives: Array<Record<string, string[]>> = [];
  if (requirement.apiKey) alternatives.push({ tenant: [], apiKey: [] });
  if (requirement.bearer) alternatives.push({ tenant: [], bearer: [] });
  return alternatives;
}

/**
 * Installs tenant resolution and authentication on every route as it is registered, so the
 * 401s come before body parsing, validation or any handler runs. A tenant-scoped route that
 * declares no auth requirement fails at start-up rather than running open.
 */
export function installGuards(app: FastifyInstance, deps: GuardDeps): void {
  app.decorateRequest('tenant', null as unknown as TenantContext);
  app.decorateRequest('principal', null);
  app.decorateRequest('ctx', null as unknown as FastifyRequest['ctx']);

  let declared = declaredByApp.get(app.server);
  if (!declared) declaredByApp.set(app.server, (declared = new Map()));
  const routes = declared;
  app.addHook('onRoute', (route: RouteOptions) => {
    const config = (route.config ?? {}) as { tenancy?: boolean; auth?: AuthRequirement; bearerInHandler?: boolean; keyScope?: KeyArea };
    if (config.tenancy === false) return;
    const requirement = config.auth;
    if (!requirement) throw new Error(`route ${String(route.method)} ${route.url} declares no auth requirement`);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD') continue;
      const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      routes.set(`${method} ${path}`, { auth: requirement, credentialInHandler: Boolean(config.bearerInHandler) });
    }
    const area = config.keyScope ?? areaOfTags((route.schema as { tags?: string[] } | undefined)?.tags);
    const guard = async (request: FastifyRequest): Promise<void> => {
      await resolveTenant(request, deps);
      await authenticate(request, requirement, area, deps);
      // The one call context of the request, built once from the checked credential.
      request.ctx = buildContext(request.tenant.id, request.principal);
    };
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    // HEAD routes are copies of their GET route and already carry the guard.
    if (existing.some((hook) => (hook as { [GUARD]?: true })[GUARD])) return;
    Object.assign(guard, { [GUARD]: true });
    route.onRequest = [guard, ...existing];
    // Mutated in place: @fastify/swagger keeps a reference to this schema object.
    if (route.schema) {
      (route.schema as { security?: unknown }).security = config.bearerInHandler ? [{ tenant: [], mailedToken: [] }] : securityFor(requirement);
    }
  });
}
