import type { FastifyInstance } from 'fastify';
import { newToken, hashToken, isHttpUrl, newItemId, type Json, type SandboxContext } from './context.js';
import { endpoint, fail, str } from './endpoint.js';
import { SandboxErrors } from './errors.js';
import { bankById, SANDBOX_PASSWORD, SANDBOX_USERNAME, TEST_ACCOUNTS } from './fixtures.js';
import type { SandboxAccount, SandboxItemRow } from './table.js';

export const LINK_TOKEN_TTL_MS = 4 * 60 * 60 * 1000;
export const PUBLIC_TOKEN_TTL_MS = 30 * 60 * 1000;

const LINK_TOKEN_FIELDS = [
  'user', 'user_id', 'products', 'required_if_supported_products', 'optional_products', 'additional_consented_products', 'webhook',
  'access_token', 'access_tokens', 'link_customization_name', 'redirect_uri', 'android_package_name', 'account_filters', 'institution_id',
  'hosted_link', 'transfer', 'auth', 'update', 'enable_multi_item_link',
];

export function itemJson(item: SandboxItemRow): Json {
  return {
    item_id: item.itemId,
    institution_id: item.institutionId,
    institution_name: item.institutionName,
    webhook: item.webhook,
    error: item.errorCode ? { ...SandboxErrors.itemLoginRequired().body, request_id: undefined } : null,
    available_products: [],
    billed_products: ['auth'],
    products: ['auth'],
    consent_expiration_time: null,
    update_type: 'background',
  };
}

const accountJson = (a: SandboxAccount): Json => ({
  account_id: a.account_id,
  balances: { available: 100, current: 110, limit: null, iso_currency_code: 'USD', unofficial_currency_code: null },
  mask: a.mask,
  name: a.name,
  official_name: a.official_name,
  type: a.type,
  subtype: a.subtype,
});

/** Accounts of a new item: the chosen templates (all of them when none is named). */
export function accountsFor(keys?: string[]): SandboxAccount[] {
  return TEST_ACCOUNTS.filter((t) => !keys || keys.includes(t.key)).map((t) => ({
    account_id: newItemId(),
    name: t.name,
    official_name: t.officialName,
    mask: t.mask,
    type: t.type,
    subtype: t.subtype,
  }));
}

/** Link tokens, public token exchange, items and accounts. */
export function itemEndpoints(app: FastifyInstance, context: SandboxContext): void {
  const { store, options } = context;
  const now = () => options.clock.now();

  async function itemFor(clientId: string, accessToken: unknown): Promise<SandboxItemRow> {
    if (typeof accessToken !== 'string' || !accessToken.startsWith('access-')) return fail(SandboxErrors.invalidAccessToken());
    const item = await store.findItemByAccessToken(clientId, hashToken(accessToken));
    return item ?? fail(SandboxErrors.invalidAccessToken());
  }

  endpoint(app, context, '/link/token/create', { required: ['client_name', 'language', 'country_codes'], optional: LINK_TOKEN_FIELDS }, async (clientId, body) => {
    const user = body.user as { client_user_id?: unknown } | undefined;
    const clientUserId = str(user?.client_user_id, 'user.client_user_id', 200);
    if (body.webhook !== undefined && !isHttpUrl(body.webhook)) fail(SandboxErrors.invalidField('webhook must be an http(s) URL'));
    const completion = (body.hosted_link as { completion_redirect_uri?: unknown } | undefined)?.completion_redirect_uri;
    if (completion !== undefined && !isHttpUrl(completion)) fail(SandboxErrors.invalidField('hosted_link.completion_redirect_uri must be an http(s) URL'));
    const token = newToken('link');
    const expiresAt = new Date(now().getTime() + LINK_TOKEN_TTL_MS);
    await store.insertLinkToken({
      tokenHash: hashToken(token),
      clientId,
      clientName: str(body.client_name, 'client_name', 30),
      clientUserId,
      products: Array.isArray(body.products) ? body.products.filter((p): p is string => typeof p === 'string') : [],
      webhook: (body.webhook as string | undefined) ?? null,
      completionRedirectUri: (completion as string | undefined) ?? null,
      institutionId: null,
      signedInAt: null,
      usedAt: null,
      createdAt: now(),
      expiresAt,
    });
    return {
      link_token: token,
      expiration: expiresAt.toISOString(),
      ...(body.hosted_link !== undefined ? { hosted_link_url: `${context.baseUrl()}/link?token=${encodeURIComponent(token)}` } : {}),
    };
  });

  endpoint(app, context, '/sandbox/public_token/create', { required: ['institution_id', 'initial_products'], optional: ['options', 'user_token', 'user_id'] }, async (clientId, body) => {
    const bank = bankById(str(body.institution_id, 'institution_id', 50)) ?? fail(SandboxErrors.invalidInstitution());
    const opts = (body.options ?? {}) as { webhook?: unknown; override_username?: unknown; override_password?: unknown };
    if (opts.webhook !== undefined && !isHttpUrl(opts.webhook)) fail(SandboxErrors.invalidField('options.webhook must be an http(s) URL'));
    const username = opts.override_username ?? SANDBOX_USERNAME;
    const password = opts.override_password ?? SANDBOX_PASSWORD;
    if (username !== SANDBOX_USERNAME || password !== SANDBOX_PASSWORD) fail(SandboxErrors.invalidField('override_username / override_password are not a sandbox test user'));
    const publicToken = await context.options.tx(async (tx) => {
      const itemId = newItemId();
      await store.insertItem(
        { itemId, clientId, accessTokenHash: null, institutionId: bank.id, institutionName: bank.name, webhook: (opts.webhook as string | undefined) ?? null, accounts: accountsFor(), errorCode: null, createdAt: now(), removedAt: null },
        tx,
      );
      const token = newToken('public');
      await store.insertPublicToken({ tokenHash: hashToken(token), clientId, itemId, createdAt: now(), expiresAt: new Date(now().getTime() + PUBLIC_TOKEN_TTL_MS) }, tx);
      return token;
    });
    return { public_token: publicToken };
  });

  endpoint(app, context, '/item/public_token/exchange', { required: ['public_token'] }, async (clientId, body) => {
    const token = body.public_token;
    if (typeof token !== 'string' || token.length > 200) return fail(SandboxErrors.invalidPublicToken());
    return options.tx(async (tx) => {
      const row = await store.consumePublicToken(clientId, hashToken(token), now(), tx);
      if (!row || row.expiresAt <= now()) return fail(SandboxErrors.invalidPublicToken());
      const accessToken = newToken('access');
      await store.updateItem(row.itemId, { accessTokenHash: hashToken(accessToken) }, tx);
      return { access_token: accessToken, item_id: row.itemId };
    });
  });

  endpoint(app, context, '/accounts/get', { required: ['access_token'], optional: ['options'] }, async (clientId, body) => {
    const item = await itemFor(clientId, body.access_token);
    return { accounts: item.accounts.map(accountJson), item: itemJson(item) };
  });

  endpoint(app, context, '/item/get', { required: ['access_token'] }, async (clientId, body) => {
    const item = await itemFor(clientId, body.access_token);
    return { item: itemJson(item), status: null };
  });

  endpoint(app, context, '/item/remove', { required: ['access_token'], optional: ['reason_code', 'reason_note'] }, async (clientId, body) => {
    const item = await itemFor(clientId, body.access_token);
    await store.updateItem(item.itemId, { removedAt: now() });
    return {};
  });

  endpoint(app, context, '/sandbox/item/reset_login', { required: ['access_token'] }, async (clientId, body) => {
    const item = await itemFor(clientId, body.access_token);
    await store.updateItem(item.itemId, { errorCode: 'ITEM_LOGIN_REQUIRED' });
    const { request_id: _omit, ...error } = SandboxErrors.itemLoginRequired().body;
    context.deliver(item.webhook, { webhook_type: 'ITEM', webhook_code: 'ERROR', item_id: item.itemId, error: { ...error, status: 400 }, environment: 'sandbox' });
    return { reset_login: true };
  });
}
