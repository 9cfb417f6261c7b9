import type { ParsedMail } from 'mailparser';
import { createHarness, type Harness } from './harness.js';
import { startSmtpCatcher, type SmtpCatcher } from './smtp.js';

/**
 * Reads the mail a flow sends, through the real path: outbox -> worker -> SMTP -> parse.
 * Generic routes queue their mail after answering, so delivery is polled briefly.
 */
export function mailbox(h: () => Harness, catcher: () => SmtpCatcher) {
  const seen = new Set<ParsedMail>();
  const recipients = (m: ParsedMail) => (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).map((a) => a.text.toLowerCase()).join(',');

  async function next(to: string, subject: RegExp, timeoutMs = 5000): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await h().container.mail.worker.drainOnce();
      const found = catcher().messages.find((m) => !seen.has(m) && recipients(m).includes(to.toLowerCase()) && subject.test(m.subject ?? ''));
      if (found) {
        seen.add(found);
        return found;
      }
      if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * All mail to `to` delivered so far: waits for the work the routes queued after answering
   * (the platform's background runner), then sends what is due until nothing more is (the
   * catcher stores a message before it accepts it).
   */
  async function count(to: string): Promise<number> {
    const { background } = h().container.platform;
    for (let round = 0; round < 20; round++) {
      await background.drain();
      const sent = await h().container.mail.worker.drainOnce();
      if (sent === 0 && background.pending === 0) break;
    }
    return catcher().messages.filter((m) => recipients(m).includes(to.toLowerCase())).length;
  }

  return { next, count };
}

export const codeIn = (mail: ParsedMail): string => /\b(\d{6})\b/.exec(mail.text ?? '')![1]!;
export const linkIn = (mail: ParsedMail): URL => new URL(/https?:\/\/\S+/.exec(mail.text ?? '')![0]!);

/**
 * A harness whose mail goes over SMTP to a catcher started for it. Feature limits stay in
 * memory: these suites move the injected clock past their windows (Redis keeps its own time).
 */
export interface MailHarness {
  h: Harness;
  box: ReturnType<typeof mailbox>;
  close(): Promise<void>;
}

export async function startMailHarness(): Promise<MailHarness> {
  const catcher = await startSmtpCatcher();
  const h = await createHarness({ env: { SMTP_URL: catcher.url }, rateLimit: { memory: true } });
  return {
    h,
    box: mailbox(() => h, () => catcher),
    async close() {
      await h.close();
      await catcher.stop();
    },
  };
}
