import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { newId, type Clock } from '../clock.js';
import { messageIdFor, type MailTransport } from './transport.js';

/**
 * The embedded default: each message becomes a real RFC 822 file (built by nodemailer's
 * stream transport) `DIR/<timestamp>-<id>.eml`, mode 0600, as it would have gone over SMTP.
 */
export function createFileTransport(dir: string, clock: Clock): MailTransport {
  const builder = createTransport({ streamTransport: true, buffer: true, newline: 'unix', disableFileAccess: true, disableUrlAccess: true });
  let dirReady: Promise<unknown> | undefined;
  return {
    kind: 'file',
    async send(message) {
      const id = message.id ?? newId();
      const info = await builder.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: messageIdFor(id, message.from),
      });
      dirReady ??= mkdir(dir, { recursive: true, mode: 0o700 });
      await dirReady;
      const stamp = clock.now().toISOString().replace(/[:.]/g, '-');
      await writeFile(join(dir, `${stamp}-${id}.eml`), info.message as Buffer, { mode: 0o600, flag: 'wx' });
    },
    async close() {
      builder.close();
    },
  };
}
