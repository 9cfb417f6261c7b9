import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { SandboxError } from './errors.js';
import type { SandboxStore } from './store.js';
import type { WebhookSigner } from './signer.js';

/** Where the sandbox answers, under the service's public address. */
export const SANDBOX_PREFIX = '/sandbox/bank-link';

export interface BankLinkSandboxOptions {
  db: DbOrTx;
  tx: RunInTx;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  /** Base of the Link and onboarding page URLs (PUBLIC_BASE_URL). */
  publicBaseUrl(): string;
  /** Runs webhook deliveries after the answer is sent (drained by shutdown and tests). */
  background: { run(name: string, work: () => Promise<void>): void };
  fetch?: typeof fetch;
}

export interface SandboxContext {
  options: BankLinkSandboxOptions;
  store: SandboxStore;
  signer: WebhookSigner;
  baseUrl(): string;
  /** Sends a signed webhook in the background, as the provider would. */
  deliver(url: string | null, payload: Record<string, unknown>): void;
}

export type Json = Record<string, unknown>;

/** Tokens in the provider's shape: `<kind>-sandbox-<uuid>`. */
export const newToken = (kind: 'link' | 'public' | 'access'): string => `${kind}-sandbox-${randomUUID()}`;
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
export const newHexId = (bytes: number): string => randomBytes(bytes).toString('hex');
export const newItemId = (): string => randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32);

export function sendError(reply: FastifyReply, error: SandboxError): FastifyReply {
  return reply.status(error.status).header('cache-control', 'no-store').send(error.body);
}

/** Credentials in the body (client_id, secret) or in the PLAID-CLIENT-ID / PLAID-SECRET headers. */
export function credentialsOf(request: FastifyRequest, body: Json): { clientId?: string; secret?: string } {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  const field = (name: string) => (typeof body[name] === 'string' && (body[name] as string).length > 0 ? (body[name] as string) : undefined);
  return { clientId: field('client_id') ?? header('plaid-client-id'), secret: field('secret') ?? header('plaid-secret') };
}

export const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
};
