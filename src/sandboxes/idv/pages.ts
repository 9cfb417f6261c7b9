import type { SandboxSession } from './store.js';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
button{margin:.25rem;padding:.5rem 1rem}pre,textarea{width:100%;white-space:pre-wrap}label{display:block;margin:.5rem 0}</style>
</head><body>${body}</body></html>`;
}

export const DECISIONS = [
  { value: 'approved', label: 'Approve' },
  { value: 'declined', label: 'Decline' },
  { value: 'resubmission_requested', label: 'Request resubmission' },
] as const;

/** The page a person opens from the session URL: choose the verification outcome. */
export function sessionPage(session: SandboxSession, action: string): string {
  const title = `${session.provider} sandbox verification`;
  const finished = session.status === 'approved' || session.status === 'declined';
  const wallet = session.wallet
    ? `<h2>Wallet</h2><p>${escapeHtml(session.wallet.chain)} address <code>${escapeHtml(session.wallet.address)}</code>. Sign this message:</p>
<pre id="message">${escapeHtml(session.wallet.message)}</pre>
<label>Signature (hex) <textarea name="signature" rows="3" required></textarea></label>
${session.wallet.chain === 'xrpl' ? '<label>Public key (hex) <input name="publicKey" size="70" required></label>' : ''}`
    : '';
  const form = finished
    ? `<p>This verification is <strong id="status">${escapeHtml(session.status)}</strong>.</p>`
    : `<form method="post" action="${escapeHtml(action)}">
${wallet}
<label>Document country <input name="country" value="DE" maxlength="2" size="3"></label>
<label>Document type <select name="documentType"><option>PASSPORT</option><option>ID_CARD</option><option>DRIVERS_LICENSE</option></select></label>
<label>Reason (for decline or resubmission) <input name="reason" size="40"></label>
${DECISIONS.map((d) => `<button type="submit" name="decision" value="${d.value}">${d.label}</button>`).join('\n')}
</form>`;
  const deliveries = session.deliveries.length
    ? `<h2>Webhooks sent</h2><ul>${session.deliveries.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`
    : '';
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p>This is a sandbox: no document is checked. Status: <strong id="status">${escapeHtml(session.status)}</strong>.</p>
${form}${deliveries}`,
  );
}

export function donePage(session: SandboxSession): string {
  const back = session.callback ? `<p><a href="${escapeHtml(session.callback)}">Return to the application</a></p>` : '';
  return layout(
    'Verification sent',
    `<h1>Decision sent</h1><p>Status: <strong id="status">${escapeHtml(session.status)}</strong></p>
<ul>${session.deliveries.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>${back}`,
  );
}

export function errorPage(message: string): string {
  return layout('Sandbox error', `<h1>Sandbox error</h1><p>${escapeHtml(message)}</p>`);
}
