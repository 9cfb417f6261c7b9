import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { IdvProviderName } from '../../providers/idv/port.js';
import type { SandboxSession, SandboxStore } from './store.js';

export interface IdvSandboxOptions {
  /**
   * The provider's credential store: the shared secret of a client (tenant), or undefined for
   * a client the sandbox does not serve. In Bastion, the tenants whose provider is the sandbox.
   */
  lookupSecret(provider: IdvProviderName, clientId: string): Promise<string | undefined>;
  /** Base of the session URLs handed out (PUBLIC_BASE_URL). */
  publicBaseUrl(): string;
  clock: Clock;
  fetch?: typeof fetch;
}

export const DECISION_CODES: Record<string, number> = { approved: 9001, declined: 9102, resubmission_requested: 9103 };
export const HTML = 'text/html; charset=utf-8';

export type Json = Record<string, unknown>;
export const str = (value: unknown, max = 2000): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
export const httpUrl = (value: unknown): string | undefined => {
  const s = str(value);
  return s && /^https?:\/\/[^\s]+$/.test(s) ? s : undefined;
};

/** What the provider route files share. */
export interface SandboxContext {
  app: FastifyInstance;
  options: IdvSandboxOptions;
  store: SandboxStore;
  config: { tenancy: false };
  schema: { hide: true };
  authenticate(provider: IdvProviderName, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined>;
  deliver(session: SandboxSession, url: string, payload: Json): Promise<void>;
  newSession(provider: IdvProviderName, clientId: string, fields: Partial<SandboxSession>): SandboxSession;
  pageUrl(provider: IdvProviderName, id: string): string;
  pagePath(provider: IdvProviderName, id: string): string;
  openSession(provider: IdvProviderName, request: FastifyRequest, reply: FastifyReply): SandboxSession | undefined;
}

