import { readFileSync } from 'node:fs';
import type { Container } from './container.js';
import { AppError } from './platform/http/errors.js';
import { ProviderSettingsError } from './platform/provider-settings/settings.js';
import { OWN_ORIGINATOR_SETTING } from './providers/bank-link/port.js';
import { redirectAllowOf, webhookPath as bankLinkWebhookPath } from './providers/bank-link/plaid/index.js';
import { webhookPath as businessProfileWebhookPath } from './providers/business-profile/business-profile-a/index.js';
import { SANDBOX_PREFIX as BUSINESS_PROFILE_SANDBOX } from './sandboxes/business-profile-a/plugin.js';
import { REVIEW_STATUSES, type ReviewStatus } from './sandboxes/business-profile-a/service.js';

/**
 * The per-kind commands the README promises for business-profile (business-profile-a), kept
 * as aliases of `provider configure|sandbox|show`: they write the same provider settings
 * (platform.providerSettings), with the options and outputs they always had; and bank-link's
 * view (its commands are in cli-commands.ts).
 */
type Options = Record<string, string | undefined>;
type Command = (c: Container, o: Options) => Promise<unknown>;

export const BANK_LINK = ['bank-link', 'plaid'] as const;
const BUSINESS_PROFILE = ['business-profile', 'business-profile-a'] as const;


/** A malformed command line (exit code 2); `cli-commands.ts` names its own the same way. */
const usage = (message: string) => new AppError(400, 'usage', message);

function need(o: Options, name: string): string {
  const value = o[name];
  if (!value) throw usage(`--${name} is required`);
  return value;
}

async function tenantOf(c: Container, o: Options): Promise<string> {
  const tenantId = need(o, 'tenant');
  if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
  return tenantId;
}

/** Provider settings input problems are usage errors. */
async function settingsInput<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderSettingsError) throw usage(error.message);
    throw error;
  }
}

/** A secret the CLI read (`--X-file`, sent as `X-file-content`), or the file itself for a caller in this process. */
const secretOf = (o: Options, option: string): string => o[`${option}-content`] ?? readFileSync(need(o, option), 'utf8').trim();

/** Everything bank-link of a tenant: the built-in sandbox's test secret is shown, a real provider's never. */
export async function bankLinkView(c: Container, tenantId: string) {
  const stored = await c.platform.providerSettings.resolve(tenantId, ...BANK_LINK);
  const sandbox = stored.baseUrl === null;
  return {
    provider: sandbox ? 'built-in sandbox' : stored.baseUrl,
    environment: stored.settings.environment === 'production' ? 'production' : 'sandbox',
    baseUrl: stored.baseUrl ?? c.sandboxes.plaid.baseUrl(),
    clientId: stored.settings['client-id'] ?? '',
    sandboxSecret: sandbox ? (stored.secrets.secret ?? null) : null,
    redirectAllow: redirectAllowOf(stored.settings),
    originatorClientId: stored.settings[OWN_ORIGINATOR_SETTING] || null,
    webhookUrl: `${c.platform.publicBaseUrl()}${bankLinkWebhookPath(tenantId)}`,
  };
}

/** Where a tenant's business profiles go, and the webhook URL to register (no secrets). */
async function businessProfileView(c: Container, tenantId: string) {
  const stored = await c.platform.providerSettings.resolve(tenantId, ...BUSINESS_PROFILE);
  return {
    provider: BUSINESS_PROFILE[1],
    baseUrl: stored.baseUrl ?? `${c.platform.publicBaseUrl()}${BUSINESS_PROFILE_SANDBOX}`,
    sandbox: stored.baseUrl === null,
    webhookUrl: `${c.platform.publicBaseUrl()}${businessProfileWebhookPath(tenantId)}`,
    apiKeyLast4: (stored.secrets['api-key'] ?? '').slice(-4),
  };
}

export const businessProfileCommands = {
  'business-profile configure': async (c, o) => {
    const tenantId = await tenantOf(c, o);
    const baseUrl = need(o, 'base-url');
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) throw usage('--base-url must be an http(s) URL');
    // The CLI reads the files before the command runs (it may run in the service, over its
    // control socket); a caller in this process may pass the paths alone.
    const apiKey = secretOf(o, 'api-key-file');
    const webhookSecret = secretOf(o, 'secret-file');
    if (apiKey.length < 8) throw usage('the API key file must hold the key');
    if (webhookSecret.length < 16) throw usage('the secret file must hold at least 16 characters');
    await settingsInput(() => c.platform.providerSettings.configure(tenantId, ...BUSINESS_PROFILE, { baseUrl, settings: {}, secrets: { 'api-key': apiKey, 'webhook-secret': webhookSecret } }));
    return { tenantId, ...(await businessProfileView(c, tenantId)) };
  },
  'business-profile sandbox': async (c, o) => {
    const tenantId = await tenantOf(c, o);
    await c.platform.providerSettings.useSandbox(tenantId, ...BUSINESS_PROFILE);
    return { tenantId, ...(await businessProfileView(c, tenantId)) };
  },
  'business-profile show': async (c, o) => {
    const tenantId = await tenantOf(c, o);
    return { tenantId, ...(await businessProfileView(c, tenantId)) };
  },
  'business-profile review': async (c, o) => {
    const tenantId = await tenantOf(c, o);
    const status = need(o, 'status');
    if (!(REVIEW_STATUSES as readonly string[]).includes(status)) throw usage(`--status must be one of ${REVIEW_STATUSES.join(', ')}`);
    const result = await c.sandboxes.businessProfileA.review(tenantId, need(o, 'business-id'), status as ReviewStatus);
    if (!result) throw new AppError(404, 'BUSINESS_NOT_FOUND', 'No such business in the sandbox account of this tenant');
    return { tenantId, businessId: result.business.id, status: result.business.status, webhook: result.delivery };
  },
} satisfies Record<string, Command>;
