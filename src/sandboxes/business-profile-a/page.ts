import type { WireBusiness } from '../../providers/business-profile/business-profile-a/protocol.js';
import { REVIEW_STATUSES } from './service.js';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The sandbox's review page of one business: its state, tasks, and the review outcomes. */
export function businessPage(business: WireBusiness, action: string, delivery?: string): string {
  const tasks = (business.review?.tasks ?? [])
    .map((t) => `<li>${escapeHtml(t.label)}: <strong>${escapeHtml(t.status)}</strong> (${escapeHtml(t.message)})</li>`)
    .join('');
  const buttons = REVIEW_STATUSES.map((s) => `<button type="submit" name="status" value="${s}">${s.replace('_', ' ')}</button>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>business-profile-a sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}button{margin:.25rem;padding:.5rem 1rem}</style>
</head><body>
<h1>${escapeHtml(business.name)}</h1>
<p>Business <code>${escapeHtml(business.id)}</code> is <strong id="status">${escapeHtml(business.status)}</strong>.</p>
${tasks ? `<ul>${tasks}</ul>` : '<p>No review tasks yet.</p>'}
${delivery ? `<p id="delivery">Webhook: ${escapeHtml(delivery)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<p>Decide the review (sends the signed <code>business.updated</code> webhook):</p>
${buttons}
</form></body></html>`;
}
