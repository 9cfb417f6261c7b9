import { randomUUID } from 'node:crypto';
import { DECISION_CODES, HTML, httpUrl, str, type Json, type SandboxContext } from '../context.js';
import { donePage, errorPage, sessionPage } from '../pages.js';
import { verifyWalletSignature } from '../../../platform/crypto/wallet-signatures.js';
import type { WalletChain } from '../../../providers/idv/port.js';

/** The idv-b sandbox: wallet style (docs/providers.md). */
export function idvBSandboxRoutes(ctx: SandboxContext): void {
  const { app, config, schema, authenticate, deliver, newSession, pageUrl, pagePath, openSession } = ctx;
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
