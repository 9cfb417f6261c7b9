import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../../platform/mail/render.js';

export { escapeHtml };

/**
 * A sandbox page. Its CSP admits form posts to the sandbox itself and to `formTarget`'s origin
 * (the redirect after a form is checked against form-action too).
 */
export function page(reply: FastifyReply, status: number, title: string, body: string, formTarget?: string | null): FastifyReply {
  let extra = '';
  if (formTarget) {
    try {
      extra = ` ${new URL(formTarget).origin}`;
    } catch {
      extra = '';
    }
  }
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`)
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem">` +
        `<p style="color:#666;font-size:.85rem">bank-link sandbox</p><h1 style="font-size:1.4rem">${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

export const button = (label: string, name?: string, value?: string) =>
  `<button type="submit"${name ? ` name="${escapeHtml(name)}" value="${escapeHtml(value ?? '')}"` : ''} style="padding:.6rem 1.2rem;font-size:1rem;margin:.3rem .3rem 0 0">${escapeHtml(label)}</button>`;

export const field = (label: string, name: string, type = 'text', value = '') =>
  `<p><label>${escapeHtml(label)}<br><input name="${escapeHtml(name)}" type="${type}" value="${escapeHtml(value)}" style="width:100%;padding:.4rem" autocomplete="off"></label></p>`;

export const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export const errorText = (message?: string) => (message ? `<p role="alert" style="color:#b00020">${escapeHtml(message)}</p>` : '');

/** Form fields of an urlencoded body; a repeated field keeps every value. */
export function formValues(body: unknown): URLSearchParams {
  return body instanceof URLSearchParams ? body : new URLSearchParams();
}
