import { signBody, SIGNATURE_HEADER } from '../src/providers/idv/signature.js';
import type { LoadSpec, RequestSpec } from './load/index.js';
import type { SeededTenant } from './seed.js';

/** Which ceiling a route is compared with. */
export type CeilingKind = 'pk' | 'argon2' | 'hmac';

export interface Scenario {
  /** Short name for BENCH_ONLY. */
  key: string;
  /** The row of the table. */
  route: string;
  ceiling: CeilingKind;
  warmup: Omit<LoadSpec, 'durationSec'>;
  measure: Omit<LoadSpec, 'durationSec'>;
  /**
   * What bounds the row when a PK SELECT is not the same work: a route of the ceiling server
   * doing the row's own statement and answer and nothing else, measured right before and right
   * after the row as its PK ceiling is.
   */
  bound?: { what: string; requests: RequestSpec[]; connections?: number };
}

export interface ScenarioData {
  big: SeededTenant;
  small: SeededTenant;
  /** Accounts with LOGIN_PASSWORD; the login load rotates through them. */
  loginEmails: string[];
  loginPassword: string;
  /** Access tokens of live sessions of big-tenant users. */
  accessTokens: string[];
  /** Unused refresh tokens of the big tenant, each used once. */
  refreshTokens: string[];
  connections: number;
  /** The idv-a decision webhooks: the tenant's webhook secret and the seeded attempts, each decided once. */
  webhook: { secret: string; attempts: Array<{ kycId: string; sessionId: string }> };
  /** Unused refresh tokens, one per bearer user in order: the flow rows exchange them for fresh access tokens. */
  flowRefreshTokens: string[];
}

const json = { 'content-type': 'application/json' };
const tenant = (t: SeededTenant) => ({ 'x-tenant-id': t.tenantId });

/** The user an access token was minted for (its `sub` claim; the bench minted it, nothing is verified here). */
function subjectOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown };
  if (typeof payload.sub !== 'string') throw new Error('an access token without sub');
  return payload.sub;
}

function bearer(t: SeededTenant, tokens: string[], path: string): RequestSpec[] {
  return tokens.map((token) => ({ method: 'GET', path, headers: { ...tenant(t), authorization: `Bearer ${token}` } }));
}

function withKey(t: SeededTenant, paths: string[]): RequestSpec[] {
  return paths.map((path) => ({ method: 'GET', path, headers: { ...tenant(t), 'x-api-key': t.apiKey } }));
}

/** Offsets in the last 10,000 rows of the tenant: the far end of offset paging. */
function farOffsets(t: SeededTenant, count: number): string[] {
  return Array.from({ length: count }, () => {
    const offset = t.userCount - 20 - Math.floor(Math.random() * 10_000);
    return `/users?limit=20&offset=${Math.max(0, offset)}`;
  });
}

const same = (spec: Omit<LoadSpec, 'durationSec'>) => ({ warmup: spec, measure: spec });

function loginRequests(d: ScenarioData): RequestSpec[] {
  return d.loginEmails.map((email) => ({
    method: 'POST',
    path: '/auth/email/login',
    headers: { ...tenant(d.big), ...json },
    body: JSON.stringify({ email, password: d.loginPassword }),
  }));
}

export function buildScenarios(d: ScenarioData): Scenario[] {
  const c = d.connections;
  // Refresh tokens rotate: the warm-up and the measurement each get their own, never reused.
  const warmupShare = Math.floor(d.refreshTokens.length / 4);
  const refresh = (tokens: string[]): Omit<LoadSpec, 'durationSec'> => ({
    connections: c,
    once: true,
    requests: tokens.map((token) => ({ method: 'POST', path: '/auth/refresh', headers: { ...tenant(d.big), ...json }, body: JSON.stringify({ refreshToken: token }) })),
  });
  return [
    { key: 'me', route: 'GET /users/me', ceiling: 'pk', ...same({ connections: c, requests: bearer(d.big, d.accessTokens, '/users/me') }) },
    { key: 'refresh', route: 'POST /auth/refresh', ceiling: 'pk', warmup: refresh(d.refreshTokens.slice(0, warmupShare)), measure: refresh(d.refreshTokens.slice(warmupShare)) },
    // 16 connections keep the password pool (2 running, 64 queued) busy without 503s.
    {
      key: 'login',
      route: 'POST /auth/email/login',
      ceiling: 'argon2',
      ...same({ connections: 16, requests: loginRequests(d) }),
      bound: {
        what: 'bare + the credential read, the verify through a pool of its own, the session and audit rows in one statement, an Ed25519 token',
        connections: 16,
        requests: loginBoundRequests(d),
      },
    },
    {
      key: 'offset',
      route: `GET /users?limit=20&offset=<last 10k of ${fmtCount(d.big.userCount)}>`,
      ceiling: 'pk',
      ...same({ connections: 8, requests: withKey(d.big, farOffsets(d.big, 1_000)) }),
    },
    {
      key: 'after-big',
      route: `GET /users?limit=20&afterId= (${fmtCount(d.big.userCount)} users)`,
      ceiling: 'pk',
      ...same({ connections: c, requests: withKey(d.big, d.big.sampleIds.map((id) => `/users?limit=20&afterId=${id}`)) }),
    },
    {
      key: 'after-small',
      route: `GET /users?limit=20&afterId= (${fmtCount(d.small.userCount)} users)`,
      ceiling: 'pk',
      ...same({ connections: c, requests: withKey(d.small, d.small.sampleIds.map((id) => `/users?limit=20&afterId=${id}`)) }),
    },
    { key: 'proof', route: 'GET /kyc/identity/proof?path=user.id', ceiling: 'pk', ...same({ connections: c, requests: bearer(d.big, d.accessTokens, '/kyc/identity/proof?path=user.id') }) },
  ];
}

/**
 * Signed idv-a decision webhooks (approved), one per seeded attempt, as idv-a sends them: the
 * exact bytes and their HMAC-SHA256 under the tenant's secret in x-hmac-signature.
 */
export function webhookRequests(d: ScenarioData, path = '/kyc/callback/idv-a/decision'): RequestSpec[] {
  const tenantId = d.big.tenantId;
  return d.webhook.attempts.map(({ kycId, sessionId }) => {
    const body = JSON.stringify({
      status: 'success',
      verification: { id: sessionId, status: 'approved', vendorData: `${tenantId}:${kycId}`, decisionTime: new Date().toISOString() },
    });
    return { method: 'POST', path, headers: { ...json, [SIGNATURE_HEADER]: signBody(body, d.webhook.secret) }, body };
  });
}

/**
 * The rows after the value-moving ones (issue #30, goal 6): the signed idv-a decision webhook
 * (each attempt decided once), and the reads of what the flows and the seed left, as the
 * users of `accessTokens` (fresh tokens of the flow phase, of the users prepareReads gave an
 * EOA and a cold wallet).
 */
export function flowScenarios(d: ScenarioData, accessTokens: string[]): Scenario[] {
  const c = d.connections;
  const webhooks = webhookRequests(d);
  const warmupShare = Math.floor(webhooks.length / 4);
  return [
    {
      key: 'webhook',
      route: 'POST /kyc/callback/idv-a/decision (signed, each attempt decided once)',
      ceiling: 'hmac',
      warmup: { connections: c, once: true, requests: webhooks.slice(0, warmupShare) },
      measure: { connections: c, once: true, requests: webhooks.slice(warmupShare) },
    },
    {
      key: 'kyc-attempts',
      route: 'GET /kyc/attempts',
      ceiling: 'pk',
      ...same({ connections: c, requests: bearer(d.big, accessTokens, '/kyc/attempts') }),
      // A page of 20 attempts is not a one-row read: the same page statement and DTOs, bare.
      bound: { what: 'bare + the same page statement, DTOs and response schema', requests: accessTokens.map((token) => ({ method: 'GET', path: `/kyc-page/${subjectOf(token)}`, headers: {} })) },
    },
    { key: 'evm-eoas', route: 'GET /evm-eoas', ceiling: 'pk', ...same({ connections: c, requests: bearer(d.big, accessTokens, '/evm-eoas') }) },
    { key: 'xrpl-wallets', route: 'GET /non-custodian-xrpl/wallets', ceiling: 'pk', ...same({ connections: c, requests: bearer(d.big, accessTokens, '/non-custodian-xrpl/wallets') }) },
  ];
}

/** The login load of the burst measurement: as many connections as fill the password pool and its queue half. */
export function loginBurst(d: ScenarioData): Omit<LoadSpec, 'durationSec'> {
  return { connections: 32, requests: loginRequests(d) };
}

/** The same logins to the ceiling server's POST /login-bound (bench/ceiling-server.ts). */
function loginBoundRequests(d: ScenarioData): RequestSpec[] {
  return loginRequests(d).map((r) => ({ ...r, path: '/login-bound', headers: json }));
}

/** The burst's logins to the login bound, for the burst's bound (bench/burst.ts). */
export function loginBoundBurst(d: ScenarioData): Omit<LoadSpec, 'durationSec'> {
  return { connections: 32, requests: loginBoundRequests(d) };
}

export function fmtCount(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return n.toLocaleString('en');
}
