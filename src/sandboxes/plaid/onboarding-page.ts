import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, SANDBOX_PREFIX, type SandboxContext } from './context.js';
import { originatorWebhook } from './api-transfer.js';
import { button, errorText, escapeHtml, field, formValues, hidden, page } from './html.js';
import type { SandboxOriginatorRow } from './table.js';

const QUESTIONS = [
  { name: 'legal_name', label: 'Legal business name' },
  { name: 'ein', label: 'EIN (9 digits)' },
  { name: 'website', label: 'Website' },
  { name: 'address', label: 'Business address' },
] as const;

/** What a sandbox reviewer may decide once the questionnaire is submitted. */
const DECISIONS = { approve: 'approved', deny: 'denied', more_info: 'more_information_required', review: 'under_review' } as const;

/**
 * The hosted KYB questionnaire of an originator. Submitting it moves the diligence to
 * `submitted`; the sandbox then shows reviewer buttons (the provider's own review, simulated)
 * that decide it. Every change sends the signed diligence webhook to the client.
 */
export function onboardingPages(app: FastifyInstance, context: SandboxContext): void {
  const { store, options } = context;
  const config = { tenancy: false } as const;
  const schema = { hide: true } as const;
  const now = () => options.clock.now();
  const base = `${SANDBOX_PREFIX}/onboarding`;

  /** The token travels in the query (GET) or a hidden field (POST), never in a path: logs redact it. */
  async function open(request: FastifyRequest, reply: FastifyReply) {
    const query = (request.query as { token?: unknown }).token;
    const token = request.method === 'GET' ? (typeof query === 'string' ? query : '') : (formValues(request.body).get('token') ?? '');
    const q = token.length > 0 && token.length <= 100 ? await store.findQuestionnaire(hashToken(token)) : undefined;
    const originator = q && q.expiresAt > now() ? await store.findOriginator(q.clientId, q.originatorClientId) : undefined;
    if (!q || !originator) {
      await page(reply, 404, 'Questionnaire not found', '<p>This onboarding link does not exist or has expired.</p>');
      return undefined;
    }
    return { token, q, originator };
  }

  function view(reply: FastifyReply, token: string, originator: SandboxOriginatorRow, redirectUri: string, status = 200, error?: string) {
    const open = originator.diligenceStatus === 'not_submitted' || originator.diligenceStatus === 'more_information_required';
    const state = `<p>Diligence status: <strong id="diligence-status">${escapeHtml(originator.diligenceStatus)}</strong></p>`;
    const body = open
      ? `<form method="post" action="${SANDBOX_PREFIX}/onboarding">${hidden('token', token)}${QUESTIONS.map((q) => field(q.label, q.name)).join('')}${button('Submit questionnaire')}</form>`
      : `<form method="post" action="${SANDBOX_PREFIX}/onboarding/review">${hidden('token', token)}<p>Sandbox review:</p>` +
        `${button('Approve', 'decision', 'approve')}${button('Deny', 'decision', 'deny')}${button('Request more information', 'decision', 'more_info')}${button('Put under review', 'decision', 'review')}</form>` +
        `<p><a href="${escapeHtml(redirectUri)}">Return to the platform</a></p>`;
    return page(reply, status, `KYB questionnaire: ${originator.companyName}`, `${errorText(error)}${state}${body}`, redirectUri);
  }

  async function changed(clientId: string, originator: SandboxOriginatorRow, status: string, answers?: Record<string, string>) {
    await store.updateOriginator(originator.originatorClientId, { diligenceStatus: status, updatedAt: now(), ...(answers ? { questionnaire: answers } : {}) });
    const client = await store.findClient(clientId);
    originatorWebhook(context, client?.webhookUrl ?? null, { originatorClientId: originator.originatorClientId, diligenceStatus: status });
  }

  app.get(base, { config, schema }, async (request, reply) => {
    const s = await open(request, reply);
    return s ? view(reply, s.token, s.originator, s.q.redirectUri) : reply;
  });

  app.post(base, { config, schema }, async (request, reply) => {
    const s = await open(request, reply);
    if (!s) return reply;
    if (s.originator.diligenceStatus !== 'not_submitted' && s.originator.diligenceStatus !== 'more_information_required') {
      return view(reply, s.token, s.originator, s.q.redirectUri, 409, 'The questionnaire was already submitted.');
    }
    const form = formValues(request.body);
    const answers: Record<string, string> = {};
    for (const q of QUESTIONS) answers[q.name] = (form.get(q.name) ?? '').trim().slice(0, 300);
    const missing = QUESTIONS.filter((q) => !answers[q.name]).map((q) => q.label);
    if (missing.length > 0) return view(reply, s.token, s.originator, s.q.redirectUri, 400, `Please answer: ${missing.join(', ')}.`);
    if (!/^\d{2}-?\d{7}$/.test(answers.ein!)) return view(reply, s.token, s.originator, s.q.redirectUri, 400, 'The EIN must have 9 digits.');
    await changed(s.q.clientId, s.originator, 'submitted', answers);
    return view(reply, s.token, { ...s.originator, diligenceStatus: 'submitted' }, s.q.redirectUri);
  });

  app.post(`${base}/review`, { config, schema }, async (request, reply) => {
    const s = await open(request, reply);
    if (!s) return reply;
    const decision = DECISIONS[formValues(request.body).get('decision') as keyof typeof DECISIONS];
    if (!decision || s.originator.diligenceStatus === 'not_submitted') {
      return view(reply, s.token, s.originator, s.q.redirectUri, 400, 'Submit the questionnaire, then choose a decision.');
    }
    await changed(s.q.clientId, s.originator, decision);
    return reply.status(303).header('cache-control', 'no-store').redirect(s.q.redirectUri, 303);
  });
}
