import type { FastifyInstance, FastifyReply } from 'fastify';
import { escapeHtml } from '../../platform/mail/render.js';
import { AppError } from '../../platform/http/errors.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { RecoveryService } from './recovery.js';
import type { VerificationService } from './verification.js';

/**
 * Bastion's own small pages behind the links in mail (used when a tenant has no app URL).
 * Fetching a page changes nothing; its form POSTs the token, so a mail scanner that opens
 * links consumes no token. Outside the tenancy guard: a form cannot send headers, so the
 * tenant travels in the form and is checked here.
 */
function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">` +
        `<h1 style="font-size:1.4rem">${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const button = (label: string) => `<button type="submit" style="padding:.6rem 1.2rem;font-size:1rem">${escapeHtml(label)}</button>`;

export function authPages(
  app: FastifyInstance,
  deps: { findTenant: (id: string) => Promise<TenantContext | undefined>; verification: VerificationService; recovery: RecoveryService },
): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const fields = (input: unknown): Record<string, string> => {
    const out: Record<string, string> = {};
    if (input && typeof input === 'object') for (const [k, v] of Object.entries(input)) if (typeof v === 'string') out[k] = v;
    return out;
  };
  const tenantOf = async (id: string | undefined) =>
    id && /^[0-9a-f-]{36}$/i.test(id) ? deps.findTenant(id.toLowerCase()) : undefined;
  const invalidLink = (reply: FastifyReply) => page(reply, 400, 'This link is not valid', '<p>The link is incomplete, expired or already used. Ask for a new one.</p>');
  const config = { tenancy: false };
  const schema = { hide: true };

  app.get('/auth/pages/verify-email', { config, schema }, async (request, reply) => {
    const q = fields(request.query);
    if (!(await tenantOf(q.tenant)) || !q.token) return invalidLink(reply);
    return page(reply, 200, 'Confirm your email address', `<form method="post" action="/auth/pages/verify-email">${hidden('tenant', q.tenant!)}${hidden('token', q.token)}${button('Confirm my email')}</form>`);
  });

  app.post('/auth/pages/verify-email', { config, schema }, async (request, reply) => {
    const f = fields(request.body);
    const tenant = await tenantOf(f.tenant);
    if (!tenant || !f.token) return invalidLink(reply);
    try {
      await deps.verification.verifyToken(tenant, f.token);
    } catch (error) {
      if (error instanceof AppError && error.statusCode === 400) return invalidLink(reply);
      throw error;
    }
    return page(reply, 200, 'Email confirmed', '<p>Your email address is confirmed. You can close this page.</p>');
  });

  app.get('/auth/pages/reset-password', { config, schema }, async (request, reply) => {
    const q = fields(request.query);
    if (!(await tenantOf(q.tenant)) || !q.token) return invalidLink(reply);
    return page(
      reply,
      200,
      'Choose a new password',
      `<form method="post" action="/auth/pages/reset-password">${hidden('tenant', q.tenant!)}${hidden('token', q.token)}` +
        `<p><label>New password (8 to 128 characters)<br><input type="password" name="password" minlength="8" maxlength="128" required autocomplete="new-password"></label></p>${button('Set password')}</form>`,
    );
  });

  app.post('/auth/pages/reset-password', { config, schema }, async (request, reply) => {
    const f = fields(request.body);
    const tenant = await tenantOf(f.tenant);
    if (!tenant || !f.token || !f.password) return invalidLink(reply);
    try {
      await deps.recovery.reset(tenant, f.token, f.password);
    } catch (error) {
      if (error instanceof AppError && error.code === 'PASSWORD_POLICY') {
        return page(reply, 400, 'Choose another password', `<p>${escapeHtml(error.message.replace('body.password', 'The password'))}</p><p>Go back and choose another one.</p>`);
      }
      if (error instanceof AppError && error.statusCode === 400) return invalidLink(reply);
      throw error;
    }
    return page(reply, 200, 'Password changed', '<p>Your password is changed and every session was signed out. You can sign in with the new password.</p>');
  });
}
