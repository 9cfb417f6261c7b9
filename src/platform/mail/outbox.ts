import { newId } from '../clock.js';
import type { DbOrTx } from '../db/client.js';
import { runTemplateWrite, writeTemplate, type TemplateWrite } from '../db/write-together.js';
import { mailOutbox } from './table.js';

/** A message as the services write it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const SINGLE_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/;
const MAX_BODY_CHARS = 256 * 1024;

/** Throws on a message that could not be a proper single-recipient mail (a programming error). */
function checkMessage(message: MailMessage): MailMessage {
  const to = message.to.trim();
  if (to.length > 254 || !SINGLE_ADDRESS.test(to)) throw new Error('enqueueMail: "to" must be exactly one email address');
  // A header must not carry line breaks; collapse any whitespace run to one space.
  const subject = message.subject.replace(/\s+/g, ' ').trim();
  if (subject === '' || subject.length > 300) throw new Error('enqueueMail: "subject" must be 1-300 characters');
  if (message.text.length > MAX_BODY_CHARS || message.html.length > MAX_BODY_CHARS) {
    throw new Error('enqueueMail: text and html are limited to 256 KiB each');
  }
  return { to, subject, text: message.text, html: message.html };
}

/** A new outbox row: its status, attempts and times the table's defaults, created_at given (`stamped`) or the database's. */
const mailInsert = {
  stamped: writeTemplate<'tenantId' | 'id' | 'to' | 'subject' | 'text' | 'html' | 'createdAt'>((db, value) =>
    db.insert(mailOutbox).values({ tenantId: value('tenantId'), id: value('id'), to: value('to'), subject: value('subject'), text: value('text'), html: value('html'), createdAt: value('createdAt') }),
  ),
  unstamped: writeTemplate<'tenantId' | 'id' | 'to' | 'subject' | 'text' | 'html'>((db, value) =>
    db.insert(mailOutbox).values({ tenantId: value('tenantId'), id: value('id'), to: value('to'), subject: value('subject'), text: value('text'), html: value('html') }),
  ),
};

function mailWrite(db: DbOrTx, id: string, tenantId: string, message: MailMessage, now: Date | undefined): TemplateWrite {
  const row = { tenantId, id, ...checkMessage(message) };
  return now ? mailInsert.stamped(db, { ...row, createdAt: now }) : mailInsert.unstamped(db, row);
}

/**
 * Writes a mail to the outbox inside the caller's transaction, so the mail exists if and only
 * if the state change that sends it commits; the mail worker delivers it. Returns its id.
 * `now` (the injected clock's time) becomes created_at; without it the database's time is used.
 */
export async function enqueueMail(
  tx: DbOrTx,
  tenantId: string,
  message: MailMessage,
  options: { now?: Date } = {},
): Promise<string> {
  const id = newId();
  await runTemplateWrite(tx, mailWrite(tx, id, tenantId, message, options.now));
  return id;
}

/**
 * The same write, checked the same way, not yet run: for writeTogether with the state change
 * that sends it (platform/db/write-together.ts), so both commit in one statement.
 */
export function enqueueMailStatement(db: DbOrTx, tenantId: string, message: MailMessage, options: { now?: Date } = {}): TemplateWrite {
  return mailWrite(db, newId(), tenantId, message, options.now);
}
