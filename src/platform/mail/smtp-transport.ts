import { createTransport } from 'nodemailer';
import { messageIdFor, type MailTransport } from './transport.js';

/**
 * SMTP through nodemailer, one connection per message (the worker sends small batches).
 * `smtp://` upgrades with STARTTLS when the server offers it; `smtps://` is TLS from the start.
 * Timeouts are short so an unreachable server fails an attempt quickly instead of holding it.
 */
export function createSmtpTransport(url: string): MailTransport {
  const transporter = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    kind: 'smtp',
    async send(message) {
      await transporter.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: message.id ? messageIdFor(message.id, message.from) : undefined,
      });
    },
    async close() {
      transporter.close();
    },
  };
}
