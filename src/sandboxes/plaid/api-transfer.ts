import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { hashToken, isHttpUrl, newHexId, type SandboxContext } from './context.js';
import { endpoint, fail, int, str } from './endpoint.js';
import { SandboxErrors } from './errors.js';
import type { SandboxOriginatorRow } from './table.js';

export const QUESTIONNAIRE_TTL_MS = 24 * 60 * 60 * 1000;

/** A diligence change: sent to the client's account webhook (docs/providers.md). */
export function originatorWebhook(context: SandboxContext, clientWebhook: string | null, row: Pick<SandboxOriginatorRow, 'originatorClientId' | 'diligenceStatus'>): void {
  context.deliver(clientWebhook, {
    webhook_type: 'TRANSFER',
    webhook_code: 'ORIGINATOR_DILIGENCE_STATUS_UPDATED',
    originator_client_id: row.originatorClientId,
    transfer_diligence_status: row.diligenceStatus,
    environment: 'sandbox',
  });
}

/** Transfer for Platforms: originators, the hosted KYB questionnaire, and webhook keys. */
export function transferEndpoints(app: FastifyInstance, context: SandboxContext): void {
  const { store, options } = context;
  const now = () => options.clock.now();

  async function originatorOf(clientId: string, value: unknown): Promise<SandboxOriginatorRow> {
    const id = str(value, 'originator_client_id', 100);
    return (await store.findOriginator(clientId, id)) ?? fail(SandboxErrors.originatorNotFound());
  }

  endpoint(app, context, '/transfer/originator/create', { required: ['company_name'] }, async (clientId, body) => {
    const companyName = str(body.company_name, 'company_name', 200).trim();
    if (companyName.length === 0) fail(SandboxErrors.invalidField('company_name must not be blank'));
    const row = await options.tx((tx) =>
      store.insertOriginator(
        { originatorClientId: newHexId(12), clientId, companyName, diligenceStatus: 'not_submitted', questionnaire: null, createdAt: now(), updatedAt: now() },
        tx,
      ),
    );
    return { originator_client_id: row.originatorClientId, company_name: row.companyName };
  });

  endpoint(app, context, '/transfer/originator/list', { required: [], optional: ['count', 'offset'] }, async (clientId, body) => {
    const count = int(body.count, 'count', 1, 25, 25);
    const offset = int(body.offset, 'offset', 0, 1_000_000, 0);
    const rows = await store.listOriginators(clientId, count, offset);
    return { originators: rows.map((r) => ({ client_id: r.originatorClientId, transfer_diligence_status: r.diligenceStatus })) };
  });

  endpoint(app, context, '/transfer/originator/get', { required: ['originator_client_id'] }, async (clientId, body) => {
    const row = await originatorOf(clientId, body.originator_client_id);
    return { originator: { client_id: row.originatorClientId, transfer_diligence_status: row.diligenceStatus, company_name: row.companyName } };
  });

  endpoint(app, context, '/transfer/questionnaire/create', { required: ['originator_client_id', 'redirect_uri'] }, async (clientId, body) => {
    const row = await originatorOf(clientId, body.originator_client_id);
    if (!isHttpUrl(body.redirect_uri)) fail(SandboxErrors.invalidField('redirect_uri must be an http(s) URL'));
    const token = randomBytes(24).toString('base64url');
    await store.insertQuestionnaire({
      tokenHash: hashToken(token),
      clientId,
      originatorClientId: row.originatorClientId,
      redirectUri: body.redirect_uri as string,
      createdAt: now(),
      expiresAt: new Date(now().getTime() + QUESTIONNAIRE_TTL_MS),
    });
    return { onboarding_url: `${context.baseUrl()}/onboarding?token=${encodeURIComponent(token)}` };
  });

  endpoint(app, context, '/webhook_verification_key/get', { required: ['key_id'] }, async (_clientId, body) => {
    const key = await context.signer.publicKey(str(body.key_id, 'key_id', 100));
    return { key: key ?? fail(SandboxErrors.keyNotFound()) };
  });
}
