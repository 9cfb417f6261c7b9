import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdvProviderName } from '../../providers/idv/port.js';
import { CLIENT_HEADER, SIGNATURE_HEADER, signBody, verifyBodySignature } from '../../providers/idv/signature.js';
import { HTML, type IdvSandboxOptions, type Json, type SandboxContext } from './context.js';
import { idvASandboxRoutes } from './idv-a/routes.js';
import { idvBSandboxRoutes } from './idv-b/routes.js';
import { errorPage } from './pages.js';
import { SandboxStore, type SandboxSession } from './store.js';

export type { IdvSandboxOptions } from './context.js';

const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The built-in identity-verification sandbox, built once by the container: its address for
 * the providers' definitions, and its routes (mounted while the sandbox is on).
 */
export function createIdvSandbox(options: IdvSandboxOptions) {
  return {
    /** Where the stand-in for `provider` answers, under PUBLIC_BASE_URL. */
    baseUrl: (provider: IdvProviderName) => `${options.publicBaseUrl()}/sandbox/${provider}`,
    /** Registers the sandbox's routes (outside tenancy and OpenAPI), in their own scope. */
    async routes(app: FastifyInstance): Promise<void> {
      await app.register(idvSandbox, options);
    },
  };
}

export type IdvSandbox = ReturnType<typeof createIdvSandbox>;

/**
 * A stand-in for the idv-a and idv-b providers, speaking their HTTP protocols
 * (docs/providers.md). Session URLs open a page where a person chooses the outcome; the
 * sandbox then sends the signed webhooks, as the provider would.
 */
async function idvSandbox(app: FastifyInstance, options: IdvSandboxOptions): Promise<void> {
  const store = new SandboxStore();
  const doFetch = options.fetch ?? fetch;
  const config = { tenancy: false } as const;
  const schema = { hide: true } as const;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    (request as FastifyRequest & { sandboxRaw?: Buffer }).sandboxRaw = body as Buffer;
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      done(null, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /** Checks the client's HMAC over the raw request body; answers 401 otherwise. */
  async function authenticate(provider: IdvProviderName, request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    const clientId = request.headers[CLIENT_HEADER];
    const signature = request.headers[SIGNATURE_HEADER];
    const raw = (request as FastifyRequest & { sandboxRaw?: Buffer }).sandboxRaw;
    const secret = typeof clientId === 'string' ? await options.lookupSecret(provider, clientId) : undefined;
    if (!secret || !raw || typeof signature !== 'string' || !verifyBodySignature(raw, signature, secret)) {
      await reply.status(401).send({ statusCode: 401, error: 'Unauthorized', message: 'Unknown client or bad signature', code: 'SANDBOX_UNAUTHORIZED' });
      return undefined;
    }
    return clientId as string;
  }

  async function deliver(session: SandboxSession, url: string, payload: Json): Promise<void> {
    const secret = await options.lookupSecret(session.provider, session.clientId);
    if (!secret) {
      session.deliveries.push(`${url}: not sent, the client no longer uses the sandbox`);
      return;
    }
    const raw = JSON.stringify(payload);
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(raw, secret) },
        body: raw,
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      session.deliveries.push(`${url}: HTTP ${res.status}`);
      await res.arrayBuffer();
    } catch (error) {
      session.deliveries.push(`${url}: failed (${(error as Error).message})`);
    }
  }

  function newSession(provider: IdvProviderName, clientId: string, fields: Partial<SandboxSession>): SandboxSession {
    const now = options.clock.now();
    const session: SandboxSession = {
      id: randomUUID(),
      provider,
      clientId,
      status: 'created',
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
      deliveries: [],
      ...fields,
    };
    store.put(session);
    return session;
  }

  const pageUrl = (provider: IdvProviderName, id: string) => `${options.publicBaseUrl()}/sandbox/${provider}/s/${id}`;
  const pagePath = (provider: IdvProviderName, id: string) => `/sandbox/${provider}/s/${id}`;

  function openSession(provider: IdvProviderName, request: FastifyRequest, reply: FastifyReply): SandboxSession | undefined {
    const session = store.get(provider, (request.params as { id: string }).id);
    if (!session) {
      void reply.status(404).type(HTML).send(errorPage('Unknown verification session'));
      return undefined;
    }
    if (options.clock.now() >= session.expiresAt) {
      void reply.status(410).type(HTML).send(errorPage('This verification session has expired'));
      return undefined;
    }
    return session;
  }

  const context: SandboxContext = { app, options, store, config, schema, authenticate, deliver, newSession, pageUrl, pagePath, openSession };
  idvASandboxRoutes(context);
  idvBSandboxRoutes(context);
}
