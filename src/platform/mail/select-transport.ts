import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { createFileTransport } from './file-transport.js';
import { createSmtpTransport } from './smtp-transport.js';
import type { MailTransport } from './transport.js';

/** SMTP when SMTP_URL is set; otherwise .eml files under DATA_DIR/mail. */
export function createMailTransport(config: { smtpUrl?: string; dataDir: string }, clock: Clock): MailTransport {
  return config.smtpUrl ? createSmtpTransport(config.smtpUrl) : createFileTransport(join(config.dataDir, 'mail'), clock);
}
