import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, newToken, newItemId, SANDBOX_PREFIX, type SandboxContext } from './context.js';
import { accountsFor, PUBLIC_TOKEN_TTL_MS } from './api-items.js';
import { bankById, SANDBOX_PASSWORD, SANDBOX_USERNAME, TEST_ACCOUNTS, TEST_BANKS } from './fixtures.js';
import { button, errorText, escapeHtml, field, formValues, hidden, page } from './html.js';
import type { SandboxLinkTokenRow } from './table.js';

const LINK_TOKEN_RE = /^link-sandbox-[0-9a-f-]{36}$/;

/**
 * The hosted Link page a person's browser opens: pick a test bank, sign in with the sandbox
 * credentials, choose accounts; the browser is then sent to the completion redirect with the
 * public token (`?public_token=...`). Each step is a form POST; GETs change nothing.
 */
export function linkPages(app: FastifyInstance, context: SandboxContext): void {
  const { store, options } = context;
  const config = { tenancy: false } as const;
  const schema = { hide: true } as const;
  const now = () => options.clock.now();
  const base = `${SANDBOX_PREFIX}/link`;

  /** The link token travels in the query (GET) or a hidden field (POST), never in a path: logs redact it. */
  async function session(request: FastifyRequest, reply: FastifyReply): Promise<{ token: string; row: SandboxLinkTokenRow } | undefined> {
    const query = (request.query as { token?: unknown }).token;
    const token = request.method === 'GET' ? (typeof query === 'string' ? query : '') : (formValues(request.body).get('token') ?? '');
    const row = LINK_TOKEN_RE.test(token) ? await store.findLinkToken(hashToken(token)) : undefined;
    if (!row || row.expiresAt <= now()) {
      await page(reply, 404, 'Link session not found', '<p>This link session does not exist or has expired. Start again from the app.</p>');
      return undefined;
    }
    if (row.usedAt) {
      await page(reply, 410, 'Link session finished', '<p>This link session has already been completed.</p>');
      return undefined;
    }
    return { token, row };
  }

  function signInPage(reply: FastifyReply, token: string, row: SandboxLinkTokenRow, status = 200, error?: string) {
    const banks = TEST_BANKS.map(
      (b, i) => `<p><label><input type="radio" name="institution_id" value="${b.id}"${i === 0 ? ' checked' : ''}> ${escapeHtml(b.name)}</label></p>`,
    ).join('');
    return page(
      reply,
      status,
      `Connect a bank account to ${row.clientName}`,
      `${errorText(error)}<form method="post" action="${base}/login">${hidden('token', token)}<fieldset><legend>Select your bank</legend>${banks}</fieldset>` +
        `${field('Username', 'username')}${field('Password', 'password', 'password')}` +
        `<p style="color:#666;font-size:.85rem">Sandbox credentials: <code>${SANDBOX_USERNAME}</code> / <code>${SANDBOX_PASSWORD}</code></p>${button('Sign in')}</form>`,
    );
  }

  function accountsPage(reply: FastifyReply, token: string, row: SandboxLinkTokenRow, status = 200, error?: string) {
    const bank = bankById(row.institutionId ?? '');
    const boxes = TEST_ACCOUNTS.map(
      (a, i) => `<p><label><input type="checkbox" name="account" value="${a.key}"${i === 0 ? ' checked' : ''}> ${escapeHtml(a.name)} ••${a.mask}</label></p>`,
    ).join('');
    return page(
      reply,
      status,
      `Choose accounts at ${bank?.name ?? 'your bank'}`,
      `${errorText(error)}<form method="post" action="${base}/accounts">${hidden('token', token)}${boxes}${button('Continue')}</form>`,
      row.completionRedirectUri,
    );
  }

  app.get(base, { config, schema }, async (request, reply) => {
    const s = await session(request, reply);
    if (!s) return reply;
    return s.row.signedInAt ? accountsPage(reply, s.token, s.row) : signInPage(reply, s.token, s.row);
  });

  app.post(`${base}/login`, { config, schema }, async (request, reply) => {
    const s = await session(request, reply);
    if (!s) return reply;
    const form = formValues(request.body);
    const bank = bankById(form.get('institution_id') ?? '');
    if (!bank) return signInPage(reply, s.token, s.row, 400, 'Select a bank.');
    if (form.get('username') !== SANDBOX_USERNAME || form.get('password') !== SANDBOX_PASSWORD) {
      return signInPage(reply, s.token, s.row, 401, 'The credentials were not correct. Please try again.');
    }
    await store.updateLinkToken(s.row.tokenHash, { institutionId: bank.id, signedInAt: now() });
    return accountsPage(reply, s.token, { ...s.row, institutionId: bank.id, signedInAt: now() });
  });

  app.post(`${base}/accounts`, { config, schema }, async (request, reply) => {
    const s = await session(request, reply);
    if (!s) return reply;
    if (!s.row.signedInAt || !s.row.institutionId) return signInPage(reply, s.token, s.row, 400, 'Sign in first.');
    const chosen = formValues(request.body).getAll('account').filter((k) => TEST_ACCOUNTS.some((a) => a.key === k));
    if (chosen.length === 0) return accountsPage(reply, s.token, s.row, 400, 'Choose at least one account.');
    const bank = bankById(s.row.institutionId)!;
    const publicToken = await options.tx(async (tx) => {
      const row = await store.findLinkToken(s.row.tokenHash, tx, true);
      if (!row || row.usedAt) return undefined;
      const itemId = newItemId();
      await store.insertItem(
        { itemId, clientId: row.clientId, accessTokenHash: null, institutionId: bank.id, institutionName: bank.name, webhook: row.webhook, accounts: accountsFor(chosen), errorCode: null, createdAt: now(), removedAt: null },
        tx,
      );
      const token = newToken('public');
      await store.insertPublicToken({ tokenHash: hashToken(token), clientId: row.clientId, itemId, createdAt: now(), expiresAt: new Date(now().getTime() + PUBLIC_TOKEN_TTL_MS) }, tx);
      await store.updateLinkToken(row.tokenHash, { usedAt: now() }, tx);
      return token;
    });
    if (!publicToken) return page(reply, 410, 'Link session finished', '<p>This link session has already been completed.</p>');
    if (!s.row.completionRedirectUri) {
      return page(reply, 200, 'Bank account connected', `<p>Hand this public token to the app:</p><p><code id="public-token">${escapeHtml(publicToken)}</code></p>`);
    }
    const target = new URL(s.row.completionRedirectUri);
    target.searchParams.set('public_token', publicToken);
    return reply.status(303).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target.href, 303);
  });
}
