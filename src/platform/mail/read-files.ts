import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';

/**
 * Reads the `.eml` files of the embedded mail transport as a person would: decoded headers and
 * text (quoted-printable undone, so links are whole). For `bastion mail list` / `mail show`.
 */
export interface MailSummary {
  id: string;
  date: string | undefined;
  to: string;
  subject: string;
}

const ID_RE = /^[A-Za-z0-9._-]+$/;

async function files(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.eml')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

const addresses = (value: { text: string } | Array<{ text: string }> | undefined) =>
  value === undefined ? '' : Array.isArray(value) ? value.map((v) => v.text).join(', ') : value.text;

/** Every message, oldest first; the id is the file name without `.eml`. */
export async function listMail(dir: string): Promise<MailSummary[]> {
  const out: MailSummary[] = [];
  for (const name of await files(dir)) {
    const parsed = await simpleParser(await readFile(join(dir, name)));
    out.push({ id: name.slice(0, -4), date: parsed.date?.toISOString(), to: addresses(parsed.to), subject: parsed.subject ?? '' });
  }
  return out;
}

/** One message as text; `id` may be the whole id or its unique ending (the message id part). */
export async function showMail(dir: string, id: string): Promise<string | undefined> {
  if (!ID_RE.test(id)) return undefined;
  const matches = (await files(dir)).filter((name) => name === `${id}.eml` || name.endsWith(`-${id}.eml`));
  if (matches.length !== 1) return undefined;
  const parsed = await simpleParser(await readFile(join(dir, matches[0]!)));
  return [
    `From: ${addresses(parsed.from)}`,
    `To: ${addresses(parsed.to)}`,
    `Date: ${parsed.date?.toISOString() ?? ''}`,
    `Subject: ${parsed.subject ?? ''}`,
    '',
    (parsed.text ?? '').trimEnd(),
    '',
  ].join('\n');
}
