import { createBastionClient, type BastionClient, type ErrorBody, type TokenPair } from '@bastion/client';

/** The signed-in admin: the tenant, the token pair, who it is. Kept for the tab only (sessionStorage). */
export interface Session {
  tenantId: string;
  accessToken: string;
  refreshToken: string;
  email: string;
  userId: string;
}

const KEY = 'bastion.console.session';
const TENANT_KEY = 'bastion.console.tenant';

export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session) {
    sessionStorage.setItem(KEY, JSON.stringify(session));
    localStorage.setItem(TENANT_KEY, session.tenantId);
  } else sessionStorage.removeItem(KEY);
}

/** The tenant to sign in to: `?tenant=` in the address, else the one used last on this browser. */
export function rememberedTenant(): string {
  return new URLSearchParams(location.search).get('tenant') ?? localStorage.getItem(TENANT_KEY) ?? '';
}

/** The service is the console's own origin (no CORS). */
export const baseUrl = location.origin;

/** A client of the tenant with no credential: sign-in, 2FA, passkeys, refresh. */
export function anonymousClient(tenantId: string): BastionClient {
  return createBastionClient({ baseUrl, tenantId });
}

/**
 * A client acting as the admin. An answer of 401 (the access token expired) refreshes the pair
 * once and repeats the call; a refresh that fails ends the session (`onSignedOut`).
 */
export function adminClient(session: Session, update: (next: Session | undefined) => void): BastionClient {
  let current = session;
  let refreshing: Promise<Session | undefined> | undefined;
  const refresh = async (): Promise<Session | undefined> => {
    const res = await anonymousClient(current.tenantId).POST('/auth/refresh', { body: { refreshToken: current.refreshToken } });
    if (!res.data) return undefined;
    current = { ...current, accessToken: res.data.accessToken, refreshToken: res.data.refreshToken };
    return current;
  };
  const client = createBastionClient({
    baseUrl,
    tenantId: session.tenantId,
    fetch: async (request: Request) => {
      const retry = request.clone();
      request.headers.set('authorization', `Bearer ${current.accessToken}`);
      const first = await fetch(request);
      if (first.status !== 401) return first;
      refreshing ??= refresh().finally(() => {
        refreshing = undefined;
      });
      const next = await refreshing;
      update(next);
      if (!next) return first;
      retry.headers.set('authorization', `Bearer ${next.accessToken}`);
      return fetch(retry);
    },
  });
  return client;
}

export function isTokenPair(body: unknown): body is TokenPair {
  return typeof body === 'object' && body !== null && 'accessToken' in body;
}

/** A line for the person: the API's message and code. */
export function describeError(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const e = error as Partial<ErrorBody> & { message: string };
    return e.code ? `${e.message} (${e.code})` : e.message;
  }
  return 'The service did not answer';
}

/** Thrown by `need` when the API answers an error; the page shows it (403: admins only). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeError(body));
  }
}

/** The data of an openapi-fetch answer, or an ApiError. */
export function need<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined || result.error !== undefined) throw new ApiError(result.response.status, result.error);
  return result.data;
}

/** How the console reads a search: an id, an EVM address, an XRPL address, or an email. */
export type SearchKind = 'id' | 'evm' | 'xrpl' | 'email';
export function searchKind(text: string): SearchKind {
  const q = text.trim();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q)) return 'id';
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) return 'evm';
  if (/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/.test(q)) return 'xrpl';
  return 'email';
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** A client with one access token (the check of who signed in, before the console keeps the session). */
export function createSessionClient(tenantId: string, accessToken: string): BastionClient {
  return createBastionClient({ baseUrl, tenantId, accessToken });
}

/** A short form of an id for tables: its last 8 characters (the random part of a UUIDv7; the first ones are its time). */
export function shortId(id: string): string {
  return `…${id.slice(-8)}`;
}
