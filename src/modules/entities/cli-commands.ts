import { readFileSync } from 'node:fs';
import { AppError } from '../../platform/http/errors.js';
import { ProviderSettingsError } from '../../platform/provider-settings/settings.js';
import type { BastionModule } from '../../platform/module/module.js';
import { REVIEW_STATUSES, type ReviewStatus } from '../../sandboxes/business-profile-a/service.js';
import type { EntitiesServices } from './module.js';

type Options = Record<string, string | undefined>;
interface CliContainer {
  modules: BastionModule[];
  tenants: { findTenant(id: string): Promise<unknown> };
}

const usage = (message: string) => new AppError(400, 'usage', message);

function need(o: Options, name: string): string {
  const value = o[name];
  if (!value) throw usage(`--${name} is required`);
  return value;
}

async function services(c: CliContainer, o: Options): Promise<{ tenantId: string; s: EntitiesServices }> {
  const tenantId = need(o, 'tenant');
  if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
  const module = c.modules.find((m) => m.name === 'entities');
  if (!module) throw new Error('the entities module is not registered');
  return { tenantId, s: module.services as EntitiesServices };
}

export const ENTITIES_USAGE = `  business-profile configure --tenant ID --base-url URL --api-key-file PATH --secret-file PATH
                                                    point a tenant at the real business-profile-a API
                                                    (API key and webhook secret read from files, sealed);
                                                    the same as provider configure --kind business-profile
                                                    --provider business-profile-a --secret api-key=PATH
                                                    --secret webhook-secret=PATH
  business-profile sandbox --tenant ID              point it back at the built-in sandbox (fresh key)
  business-profile show --tenant ID                 where the tenant points, and the webhook URL to
                                                    register at the provider (no secrets)
  business-profile review --tenant ID --business-id ID --status in_review|approved|rejected
                                                    sandbox only: decide a business's review; the
                                                    sandbox sends the signed business.updated webhook`;

/** The operator commands of the entities module (business-profile-a settings and the sandbox). */
export const entitiesCommands: Record<string, (c: CliContainer, o: Options) => Promise<unknown>> = {
  'business-profile configure': async (c, o) => {
    const { tenantId, s } = await services(c, o);
    const baseUrl = need(o, 'base-url');
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) throw usage('--base-url must be an http(s) URL');
    // The CLI reads the files before the command runs (it may run in the service, over its
    // control socket); a caller in this process may pass the paths alone.
    const apiKey = o['api-key-file-content'] ?? readFileSync(need(o, 'api-key-file'), 'utf8').trim();
    const webhookSecret = o['secret-file-content'] ?? readFileSync(need(o, 'secret-file'), 'utf8').trim();
    if (apiKey.length < 8) throw usage('the API key file must hold the key');
    if (webhookSecret.length < 16) throw usage('the secret file must hold at least 16 characters');
    try {
      await s.businessProfileConfig.configure(tenantId, { baseUrl, apiKey, webhookSecret });
    } catch (error) {
      if (error instanceof ProviderSettingsError) throw usage(error.message);
      throw error;
    }
    return { tenantId, ...(await s.businessProfileConfig.view(tenantId)) };
  },
  'business-profile sandbox': async (c, o) => {
    const { tenantId, s } = await services(c, o);
    await s.businessProfileConfig.configure(tenantId, null);
    return { tenantId, ...(await s.businessProfileConfig.view(tenantId)) };
  },
  'business-profile show': async (c, o) => {
    const { tenantId, s } = await services(c, o);
    return { tenantId, ...(await s.businessProfileConfig.view(tenantId)) };
  },
  'business-profile review': async (c, o) => {
    const { tenantId, s } = await services(c, o);
    const status = need(o, 'status');
    if (!(REVIEW_STATUSES as readonly string[]).includes(status)) throw usage(`--status must be one of ${REVIEW_STATUSES.join(', ')}`);
    const result = await s.businessProfileSandbox.review(tenantId, need(o, 'business-id'), status as ReviewStatus);
    if (!result) throw new AppError(404, 'BUSINESS_NOT_FOUND', 'No such business in the sandbox account of this tenant');
    return { tenantId, businessId: result.business.id, status: result.business.status, webhook: result.delivery };
  },
};
