import type { MailMessage } from './outbox.js';

export interface MailContent {
  /** Becomes the subject and the heading. */
  title: string;
  intro: string;
  /** A one-time code, shown large. */
  code?: string;
  /** A button-like link; only http(s) URLs are accepted. */
  link?: { url: string; label: string };
  outro?: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('renderMail: link.url must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('renderMail: link.url must be http(s)');
  return parsed.toString();
}

/** Paragraphs of plain text as HTML: escaped, blank lines separate paragraphs, single newlines break lines. */
function paragraphs(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 16px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/**
 * A plain, readable mail in text and HTML: every inserted value is HTML-escaped, there are no
 * external assets (no images, fonts or trackers), and the text part says everything the HTML does.
 */
export function renderMail(content: MailContent): Omit<MailMessage, 'to'> {
  const subject = content.title.replace(/\s+/g, ' ').trim();
  const url = content.link ? checkedUrl(content.link.url) : undefined;

  const text = [
    subject,
    content.intro,
    content.code === undefined ? undefined : `Your code: ${content.code}`,
    url && content.link ? `${content.link.label}: ${url}` : undefined,
    content.outro,
  ]
    .filter((part): part is string => part !== undefined && part !== '')
    .join('\n\n')
    .concat('\n');

  const blocks = [
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(subject)}</h1>`,
    paragraphs(content.intro),
  ];
  if (content.code !== undefined) {
    blocks.push(
      `<p style="font-size:28px;font-weight:bold;letter-spacing:4px;font-family:monospace;margin:0 0 16px">${escapeHtml(content.code)}</p>`,
    );
  }
  if (url && content.link) {
    blocks.push(
      `<p style="margin:0 0 16px"><a href="${escapeHtml(url)}" style="display:inline-block;padding:10px 16px;background:#1f4fd1;color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(content.link.label)}</a></p>`,
      `<p style="margin:0 0 16px;font-size:12px;color:#555">If the button does not work, copy this address into your browser:<br>${escapeHtml(url)}</p>`,
    );
  }
  if (content.outro) blocks.push(paragraphs(content.outro));

  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>' + escapeHtml(subject) + '</title></head>',
    '<body style="margin:0;padding:24px;background:#f5f5f5;font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5">',
    '<div style="max-width:560px;margin:0 auto;background:#ffffff;padding:24px;border-radius:6px">',
    ...blocks,
    '</div>',
    '</body></html>',
    '',
  ].join('\n');

  return { subject, text, html };
}
