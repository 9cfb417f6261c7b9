import { randomUUID } from 'node:crypto';
import { DECISION_CODES, HTML, httpUrl, str, type Json, type SandboxContext } from '../context.js';
import { donePage, errorPage, sessionPage } from '../pages.js';
import type { SandboxSession } from '../store.js';

/** The idv-a sandbox: session style (docs/providers.md). */
export function idvASandboxRoutes(ctx: SandboxContext): void {
  const { app, options, config, schema, authenticate, deliver, newSession, pageUrl, pagePath, openSession } = ctx;
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

}
