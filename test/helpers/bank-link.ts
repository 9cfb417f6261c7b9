import type { BankLinkServices } from '../../src/modules/bank-link/module.js';
import { OWN_ORIGINATOR_SETTING, REDIRECT_ALLOW_SETTING } from '../../src/providers/bank-link/port.js';
import { redirectAllowSetting } from '../../src/providers/bank-link/plaid/index.js';
import type { Harness, TestTenant } from './harness.js';

export const APP_RETURN = 'https://app.example/bank';

export function bankLink(h: Harness): BankLinkServices {
  const module = h.container.modules.find((m) => m.name === 'bank-link');
  if (!module) throw new Error('the bank-link module is not registered');
  return module.services as BankLinkServices;
}

/** The built-in bank-link provider (its signer serves tests that forge webhooks). */
export const plaidSandbox = (h: Harness) => h.container.sandboxes.plaid;

/** Replaces the tenant's return allow-list, as `bank-link redirect-allow` does. */
export async function allowRedirects(h: Harness, tenantId: string, urls: string[]): Promise<void> {
  await h.container.platform.providerSettings.update(tenantId, 'bank-link', 'plaid', { [REDIRECT_ALLOW_SETTING]: redirectAllowSetting(urls) });
}

/** Points the tenant at a provider environment, as `bank-link configure` does. */
export async function configureBankLink(h: Harness, tenantId: string, input: { baseUrl: string; environment?: 'sandbox' | 'production'; clientId: string; secret: string }): Promise<void> {
  await h.container.platform.providerSettings.configure(tenantId, 'bank-link', 'plaid', {
    baseUrl: input.baseUrl,
    settings: { 'client-id': input.clientId, environment: input.environment ?? 'sandbox' },
    secrets: { secret: input.secret },
  });
}

/** Names the tenant's own originator, as `bank-link originator` does. */
export async function setOwnOriginator(h: Harness, tenantId: string, originatorId: string): Promise<void> {
  await h.container.platform.providerSettings.update(tenantId, 'bank-link', 'plaid', { [OWN_ORIGINATOR_SETTING]: originatorId });
}

/** The tenant's sandbox credentials (clientId, secret), its sandbox account open, with the test return URL allowed. */
export async function sandboxSetup(h: Harness, tenant: TestTenant = h.tenant): Promise<{ clientId: string; secret: string }> {
  await allowRedirects(h, tenant.tenantId, [APP_RETURN]);
  // The tenant's port opens its sandbox account (as its first call would).
  await h.container.platform.providers.port(tenant.tenantId, 'bank-link');
  const stored = await h.container.platform.providerSettings.get(tenant.tenantId, 'bank-link', 'plaid');
  return { clientId: stored.settings['client-id']!, secret: stored.secrets.secret! };
}

/** Where the built-in sandbox answers (the official client's basePath). */
export const sandboxBase = (h: Harness): string => plaidSandbox(h).baseUrl();

/** The path and query of a URL on the test server (for inject). */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** Walks the hosted Link page (HTML forms, outside the API document: inject) as a browser would (bank, sign-in, accounts); returns the public token. */
export async function walkLinkPage(h: Harness, linkUrl: string, accounts: string[] = ['checking', 'savings']): Promise<string> {
  const page = pathOf(linkUrl);
  const token = new URL(linkUrl).searchParams.get('token')!;
  const form = (fields: Record<string, string | string[]>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) params.append(k, one);
    return { payload: params.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  };
  const open = await h.inject({ method: 'GET', url: page });
  if (open.statusCode !== 200) throw new Error(`Link page answered ${open.statusCode}`);
  const login = await h.inject({ method: 'POST', url: '/sandbox/bank-link/link/login', ...form({ token, institution_id: 'ins_109508', username: 'user_good', password: 'pass_good' }) });
  if (login.statusCode !== 200) throw new Error(`sign-in answered ${login.statusCode}`);
  const done = await h.inject({ method: 'POST', url: '/sandbox/bank-link/link/accounts', ...form({ token, account: accounts }) });
  if (done.statusCode !== 303) throw new Error(`accounts answered ${done.statusCode}: ${done.body.slice(0, 200)}`);
  const publicToken = new URL(String(done.headers.location)).searchParams.get('public_token');
  if (!publicToken) throw new Error('no public token in the redirect');
  return publicToken;
}

/** A user's linked item through the routes: link token, Link page, exchange. */
export async function linkItem(h: Harness, headers: Record<string, string>, accounts?: string[]) {
  const api = h.api(headers);
  const res = await api.GET('/bank-link/link-token', { params: { query: { redirectUrl: `${APP_RETURN}/done` } } });
  if (!res.data) throw new Error(`link-token answered ${res.response.status}: ${JSON.stringify(res.error)}`);
  const publicToken = await walkLinkPage(h, res.data.linkUrl!, accounts);
  const exchanged = await api.POST('/bank-link/public-token', { body: { publicToken } });
  if (exchanged.response.status !== 201 || !exchanged.data) throw new Error(`exchange answered ${exchanged.response.status}: ${JSON.stringify(exchanged.error)}`);
  return exchanged.data;
}
