import { UNPARSABLE_BODY } from './endpoint.js';
import type { FastifyInstance } from 'fastify';
import { itemEndpoints } from './api-items.js';
import { transferEndpoints } from './api-transfer.js';
import { hashToken, isHttpUrl, SANDBOX_PREFIX, type BankLinkSandboxOptions, type SandboxContext } from './context.js';
import { linkPages } from './link-page.js';
import { onboardingPages } from './onboarding-page.js';
import { createWebhookSigner } from './signer.js';
import { createSandboxStore } from './store.js';
import { VERIFICATION_HEADER } from '../../providers/bank-link/port.js';

export type { BankLinkSandboxOptions } from './context.js';

const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * The built-in bank-link provider: the provider's HTTP protocol (docs/providers.md) under
 * /sandbox/bank-link, its Link and KYB pages, and signed webhooks. State in the database.
 */
export function createBankLinkSandbox(options: BankLinkSandboxOptions) {
  const store = createSandboxStore(options.db);
  const signer = createWebhookSigner({ store, secrets: options.secrets, clock: options.clock });
  const doFetch = options.fetch ?? fetch;
  const baseUrl = () => `${options.publicBaseUrl()}${SANDBOX_PREFIX}`;

  async function send(url: string, payload: Record<string, unknown>): Promise<void> {
    const raw = JSON.stringify(payload);
    const res = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [VERIFICATION_HEADER]: await signer.sign(raw) },
      body: raw,
      redirect: 'error',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    options.logger.info({ webhookType: payload.webhook_type, webhookCode: payload.webhook_code, status: res.status }, 'bank-link sandbox webhook delivered');
  }

  const context: SandboxContext = {
    options,
    store,
    signer,
    baseUrl,
    deliver(url, payload) {
      if (!url || !isHttpUrl(url)) return;
      options.background.run('bank-link sandbox webhook', () => send(url, payload));
    },
  };

  return {
    baseUrl,
    signer,
    /** Registers the sandbox's routes (outside tenancy and OpenAPI), in their own scope. */
    async routes(app: FastifyInstance): Promise<void> {
      await app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
          try {
            done(null, JSON.parse(body as string));
          } catch {
            // Answered as INVALID_BODY by the endpoint (a non-object body is never a request).
            done(null, UNPARSABLE_BODY);
          }
        });
        scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => {
          done(null, new URLSearchParams(body as string));
        });
        itemEndpoints(scope, context);
        transferEndpoints(scope, context);
        linkPages(scope, context);
        onboardingPages(scope, context);
      }, { prefix: '' });
    },
    /**
     * Opens (or re-keys) a client account at the sandbox, as signing up at the provider would:
     * its secret (stored hashed) and its account-level webhook URL.
     */
    async provisionClient(client: { clientId: string; secret: string; webhookUrl: string | null }): Promise<void> {
      await store.upsertClient({ clientId: client.clientId, secretHash: hashToken(client.secret), webhookUrl: client.webhookUrl, createdAt: options.clock.now() });
    },
  };
}

export type BankLinkSandbox = ReturnType<typeof createBankLinkSandbox>;
