import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalJson } from '../../platform/idempotency/key.js';
import { APP_ID_HEADER, NONCE_HEADER, USER_ACTION_HEADER } from '../../providers/custody-b/port.js';
import type { Broadcasts } from './broadcasts.js';
import type { CustodyBSandboxOptions } from './options.js';
import type { SandboxStore } from './store.js';
import type { RelyingParty } from './verify.js';

/** Where the sandbox is served (its base URL is the service's public address plus this). */
export const SANDBOX_PREFIX = '/sandbox/custody-b';
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const REGISTRATION_TTL_MS = 15 * 60_000;
export const USER_ACTION_TTL_MS = 5 * 60_000;
export const USER_TOKEN_TTL_MS = 60 * 60_000;
const NONCE_WINDOW_MS = 5 * 60_000;


export type { CustodyBSandboxOptions } from './options.js';

export interface SandboxContext {
  options: CustodyBSandboxOptions;
  store: SandboxStore;
  broadcasts: Broadcasts;
  rp(): RelyingParty;
}

import { SandboxError } from './errors.js';

export { SandboxError };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const randomToken = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
export const randomId = (prefix: string) => `${prefix}-${randomBytes(10).toString('hex')}`;
/** A challenge: 32 random bytes, base64url (what WebAuthn clients sign as is). */
export const newChallenge = () => randomBytes(32).toString('base64url');

export interface Caller {
  orgId: string;
  userId: string;
  kind: 'service' | 'user' | 'registration';
  tokenHash: string;
}

/** The bearer token of the request: its organisation, user and kind; 401 otherwise. */
export async function authenticate(ctx: SandboxContext, request: FastifyRequest, kinds: Caller['kind'][]): Promise<Caller> {
  const header = request.headers.authorization;
  const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  if (!token) throw new SandboxError(401, 'Unauthorized: no bearer token');
  const tokenHash = hashToken(token);
  const row = await ctx.store.token(tokenHash);
  const now = ctx.options.clock.now();
  if (!row || (row.expiresAt && row.expiresAt <= now)) throw new SandboxError(401, 'Unauthorized: token invalid or expired');
  const appId = request.headers[APP_ID_HEADER];
  if (appId !== undefined) {
    const org = await ctx.store.orgById(row.orgId);
    if (!org || org.appId !== appId) throw new SandboxError(401, 'Unauthorized: unknown application id');
  }
  if (!kinds.includes(row.kind)) throw new SandboxError(403, 'Forbidden: this token cannot call this endpoint');
  await checkNonce(ctx, request);
  return { orgId: row.orgId, userId: row.userId, kind: row.kind, tokenHash };
}

/** A request nonce (when sent): base64url JSON `{uuid, datetime}`, recent and never seen. */
async function checkNonce(ctx: SandboxContext, request: FastifyRequest): Promise<void> {
  const raw = request.headers[NONCE_HEADER];
  if (raw === undefined) return;
  let parsed: { uuid?: unknown; datetime?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(String(raw), 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw new SandboxError(400, 'Bad request: the nonce header is not base64url JSON');
  }
  const at = typeof parsed?.datetime === 'string' ? Date.parse(parsed.datetime) : Number.NaN;
  const now = ctx.options.clock.now();
  if (typeof parsed?.uuid !== 'string' || Number.isNaN(at) || Math.abs(now.getTime() - at) > NONCE_WINDOW_MS) {
    throw new SandboxError(400, 'Bad request: the nonce is malformed or not recent');
  }
  if (!(await ctx.store.recordNonce(String(raw), now, new Date(now.getTime() - 2 * NONCE_WINDOW_MS)))) {
    throw new SandboxError(401, 'Unauthorized: the nonce was used before');
  }
}

/** The request's JSON body as the user action payload compares it (key order aside). */
function canonical(value: unknown): string {
  try {
    return canonicalJson(value ?? {});
  } catch {
    throw new SandboxError(400, 'Bad request: the body cannot be compared (too deep)');
  }
}

/**
 * The request's one-time user-action token: issued for this user, this method, this path
 * (from the API root) and this exact body; taken once.
 */
export async function requireUserAction(ctx: SandboxContext, request: FastifyRequest, caller: Caller, path: string): Promise<void> {
  const token = request.headers[USER_ACTION_HEADER];
  if (typeof token !== 'string' || !token) throw new SandboxError(401, 'Unauthorized: this endpoint needs a user action signature (x-dfns-useraction)');
  const action = await ctx.store.consumeUserAction(hashToken(token), ctx.options.clock.now());
  if (!action || action.orgId !== caller.orgId || action.userId !== caller.userId) throw new SandboxError(401, 'Unauthorized: the user action token is invalid, used or expired');
  let payload: unknown;
  try {
    payload = action.payload === '' ? {} : JSON.parse(action.payload);
  } catch {
    throw new SandboxError(400, 'Bad request: the user action was signed for a payload that is not JSON');
  }
  if (action.method !== request.method || action.path !== path || canonical(payload) !== canonical(request.body)) {
    throw new SandboxError(400, 'Bad request: the user action was signed for another request (method, path or body differ)');
  }
}

/** Answers a SandboxError as the provider would; anything else is the sandbox's fault (500). */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof SandboxError) return reply.code(error.status).send({ error: { message: error.message } });
  throw error;
}

/** Strips the sandbox prefix: the path as the provider's clients sign it. */
export const apiPath = (url: string) => url.split('?')[0]!.slice(SANDBOX_PREFIX.length) || '/';
