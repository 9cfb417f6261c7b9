import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpCatcher {
  /** smtp://127.0.0.1:PORT, for SMTP_URL. */
  url: string;
  port: number;
  /** Every message received, parsed, in arrival order. */
  messages: ParsedMail[];
  /** Resolves with the first message (received or to come) matching the predicate. */
  waitFor(predicate: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  stop(): Promise<void>;
}

export interface SmtpCatcherOptions {
  /** Listen on this port (0: any free port). Lets a test bring a "down" server back at the same address. */
  port?: number;
  /** Recipients the server refuses with 550 (a permanent failure). */
  rejectRecipient?: (address: string) => boolean;
}

/**
 * A real SMTP server (smtp-server) on loopback: no TLS, no authentication required. Whatever it
 * accepts is parsed with mailparser and kept in `messages`.
 */
export async function startSmtpCatcher(options: SmtpCatcherOptions = {}): Promise<SmtpCatcher> {
  const messages: ParsedMail[] = [];
  const waiters = new Set<(mail: ParsedMail) => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1_000,
    onRcptTo(address, _session, callback) {
      if (options.rejectRecipient?.(address.address)) {
        const error = Object.assign(new Error('No such user here'), { responseCode: 550 });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          for (const waiter of waiters) waiter(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(predicate, timeoutMs = 5_000) {
      const already = messages.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        const waiter = (mail: ParsedMail) => {
          if (!predicate(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        waiters.add(waiter);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
