import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import { verifyWalletSignature } from '../../../platform/crypto/wallet-signatures.js';
import { CLIENT_HEADER, SIGNATURE_HEADER, signBody, verifyBodySignature, type IdvProviderName, type WalletChain } from '../port.js';
import { donePage, errorPage, sessionPage } from './pages.js';
import { SandboxStore, type SandboxSession } from './store.js';

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

const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const DECISION_CODES: Record<string, number> = { approved: 9001, declined: 9102, resubmission_requested: 9103 };
const HTML = 'text/html; charset=utf-8';

type Json = Record<string, unknown>;
const str = (value: unknown, max = 2000): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
const httpUrl = (value: unknown): string | undefined => {
  const s = str(value);
  return s && /^https?:\/\/[^\s]+$/.test(s) ? s : undefined;
};

/**
 * A stand-in for the idv-a and idv-b providers, speaking their HTTP protocols
 * (docs/providers.md). Session URLs open a page where a person chooses the outcome; the
 * sandbox then sends the signed webhooks, as the provider would.
 */
export async function idvSandbox(app: FastifyInstance, options: IdvSandboxOptions): Promise<void> {
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

  // ---- idv-a: session style -------------------------------------------------------------
  app.post('/sandbox/idv-a/v1/sessions', { config, schema }, async (request, reply) => {
    const clientId = await authenticate('idv-a', request, reply);
    if (!clientId) return reply;
    const v = ((request.body ?? {}) as { verification?: Json }).verification ?? {};
    const webhooks = (v.webhooks ?? {}) as Json;
    const vendorData = str(v.vendorData, 400);
    const event = httpUrl(webhooks.event);
    const decision = httpUrl(webhooks.decision);
    if (!vendorData || !event || !decision) {
      return reply.status(400).send({ statusCode: 400, error: 'Bad Request', message: 'verification.vendorData and verification.webhooks.{event,decision} are required', code: 'SANDBOX_BAD_REQUEST' });
    }
    const person = (v.person ?? undefined) as SandboxSession['person'];
    const session = newSession('idv-a', clientId, { vendorData, webhooks: { event, decision }, callback: httpUrl(v.callback), person });
    return reply.status(201).send({
      status: 'success',
      verification: { id: session.id, url: pageUrl('idv-a', session.id), vendorData, status: 'created', expiresAt: session.expiresAt.toISOString() },
    });
  });

  app.get('/sandbox/idv-a/s/:id', { config, schema }, async (request, reply) => {
    const session = openSession('idv-a', request, reply);
    if (!session) return reply;
    if (session.status === 'created') {
      session.status = 'started';
      await deliver(session, session.webhooks!.event, { id: session.id, attemptId: randomUUID(), feature: 'selfid', code: 7001, action: 'started', vendorData: session.vendorData });
    }
    return reply.type(HTML).send(sessionPage(session, pagePath('idv-a', session.id)));
  });

  app.post('/sandbox/idv-a/s/:id', { config, schema }, async (request, reply) => {
    const session = openSession('idv-a', request, reply);
    if (!session) return reply;
    const form = (request.body ?? {}) as Record<string, string>;
    const decision = form.decision ?? '';
    if (!(decision in DECISION_CODES) || session.status === 'approved' || session.status === 'declined') {
      return reply.status(400).type(HTML).send(errorPage('Choose approve, decline or request resubmission on an open session'));
    }
    await deliver(session, session.webhooks!.event, { id: session.id, attemptId: randomUUID(), feature: 'selfid', code: 7002, action: 'submitted', vendorData: session.vendorData });
    session.status = decision;
    await deliver(session, session.webhooks!.decision, {
      status: 'success',
      verification: {
        id: session.id,
        code: DECISION_CODES[decision],
        status: decision,
        reason: decision === 'approved' ? null : form.reason || 'sandbox decision',
        vendorData: session.vendorData,
        decisionTime: options.clock.now().toISOString(),
        person: { firstName: session.person?.firstName ?? 'Sandbox', lastName: session.person?.lastName ?? 'Person', dateOfBirth: '1990-01-01' },
        document: { country: (form.country || 'DE').toUpperCase(), type: form.documentType || 'PASSPORT' },
      },
    });
    return reply.type(HTML).send(donePage(session));
  });

  // ---- idv-b: wallet style --------------------------------------------------------------
  app.post('/sandbox/idv-b/v1/sessions', { config, schema }, async (request, reply) => {
    const clientId = await authenticate('idv-b', request, reply);
    if (!clientId) return reply;
    const body = (request.body ?? {}) as Json;
    const reference = str(body.reference, 200);
    const webhookUrl = httpUrl(body.webhookUrl);
    const flow = body.flow === 'web3' || body.flow === 'regular' ? body.flow : undefined;
    const w = (body.wallet ?? undefined) as Json | undefined;
    const wallet =
      w && (w.chain === 'evm' || w.chain === 'xrpl') && str(w.address, 100) && str(w.message, 4000)
        ? { chain: w.chain as WalletChain, address: w.address as string, message: w.message as string }
        : undefined;
    if (!reference || !webhookUrl || !flow || (flow === 'web3') !== Boolean(wallet)) {
      return reply.status(400).send({ statusCode: 400, error: 'Bad Request', message: 'reference, flow, webhookUrl (and wallet for web3) are required', code: 'SANDBOX_BAD_REQUEST' });
    }
    const session = newSession('idv-b', clientId, { reference, webhookUrl, flow, wallet });
    return reply.status(201).send({ sessionId: session.id, url: pageUrl('idv-b', session.id), flow, expiresAt: session.expiresAt.toISOString() });
  });

  app.get('/sandbox/idv-b/s/:id', { config, schema }, async (request, reply) => {
    const session = openSession('idv-b', request, reply);
    if (!session) return reply;
    return reply.type(HTML).send(sessionPage(session, pagePath('idv-b', session.id)));
  });

  app.post('/sandbox/idv-b/s/:id', { config, schema }, async (request, reply) => {
    const session = openSession('idv-b', request, reply);
    if (!session) return reply;
    const form = (request.body ?? {}) as Record<string, string>;
    const decision = form.decision ?? '';
    if (!(decision in DECISION_CODES) || session.status === 'approved' || session.status === 'declined') {
      return reply.status(400).type(HTML).send(errorPage('Choose approve, decline or request resubmission on an open session'));
    }
    let wallet: Json | undefined;
    if (session.wallet) {
      const proof = { ...session.wallet, signature: form.signature ?? '', publicKey: form.publicKey || undefined };
      if (!(await verifyWalletSignature(proof))) {
        return reply.status(400).type(HTML).send(errorPage('The signature does not sign the message with this wallet'));
      }
      wallet = { chain: proof.chain, address: proof.address, signature: proof.signature, ...(proof.publicKey ? { publicKey: proof.publicKey } : {}) };
    }
    session.status = decision;
    await deliver(session, session.webhookUrl!, {
      eventId: randomUUID(),
      sessionId: session.id,
      reference: session.reference,
      status: decision,
      reason: decision === 'approved' ? null : form.reason || 'sandbox decision',
      person: { firstName: 'Sandbox', lastName: 'Person', dateOfBirth: '1990-01-01' },
      document: { country: (form.country || 'DE').toUpperCase(), type: form.documentType || 'PASSPORT' },
      ...(wallet ? { wallet } : {}),
    });
    return reply.type(HTML).send(donePage(session));
  });
}
