import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { createFileTransport } from '../../src/platform/mail/file-transport.js';
import { createMailQueue } from '../../src/platform/mail/queue.js';
import { renderMail } from '../../src/platform/mail/render.js';
import { createSmtpTransport } from '../../src/platform/mail/smtp-transport.js';
import { createMailWorker } from '../../src/platform/mail/worker.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectSecretAbsent } from '../helpers/security.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { statementsDuring } from '../helpers/statements.js';

const MAX_ATTEMPTS = 3;
let catcher: SmtpCatcher;
let h: Harness;

beforeAll(async () => {
  catcher = await startSmtpCatcher({ rejectRecipient: (a) => a.startsWith('nobody@') });
  h = await createHarness({ env: { SMTP_URL: catcher.url }, mailWorker: { maxAttempts: MAX_ATTEMPTS } });
});
afterAll(async () => {
  await h.close();
  await catcher.stop();
});

/** A message whose body holds secrets that must never reach a log or last_error. */
function secretMessage(to = `user-${randomUUID()}@example.com`) {
  const code = String(100000 + Math.floor(Math.random() * 900000));
  const token = randomUUID().replace(/-/g, '');
  const subject = `Subject ${randomUUID()}`;
  return {
    code,
    token,
    message: {
      to,
      subject,
      text: `Your code is ${code}. Or open https://app.test/verify?token=${token}`,
      html: `<p>Your code is <b>${code}</b></p><a href="https://app.test/verify?token=${token}">verify</a>`,
    },
  };
}

const queue = () => createMailQueue(h.database.db);
const enqueueCommitted = (message: ReturnType<typeof secretMessage>['message']) =>
  h.database.db.transaction((tx) => h.container.mail.enqueue(tx, h.tenant.tenantId, message));
const delivered = (subject: string) => catcher.messages.filter((m) => m.subject === subject);

/** Stops the SMTP server, runs fn, and brings a server back on the same port. */
async function withServerDown(fn: () => Promise<void>): Promise<void> {
  const port = catcher.port;
  await catcher.stop();
  try {
    await fn();
  } finally {
    catcher = await startSmtpCatcher({ port, rejectRecipient: (a) => a.startsWith('nobody@') });
  }
}

describe('mail outbox and SMTP delivery', () => {
  it('a mail enqueued in a committed transaction is delivered over SMTP', async () => {
    const { message } = secretMessage();
    const id = await enqueueCommitted(message);
    const pending = await queue().findById(h.tenant.tenantId, id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: null, createdAt: h.clock.now() });

    expect(await h.container.mail.worker.drainOnce()).toBe(1);
    const mail = await catcher.waitFor((m) => m.subject === message.subject);
    expect(mail.text?.trim()).toBe(message.text);
    expect(mail.html).toContain(message.html);
    expect(mail.from?.value).toEqual([{ address: 'no-reply@bastion.local', name: 'Bastion' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([{ address: message.to, name: '' }]);
    expect(mail.messageId).toBe(`<${id}@bastion.local>`);

    const sent = await queue().findById(h.tenant.tenantId, id);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, sentAt: h.clock.now(), lastError: null });
    // The body (codes, links) is erased once delivered; recipient and subject remain.
    expect(sent).toMatchObject({ text: '', html: '', to: message.to, subject: message.subject });
    expect(await h.container.mail.worker.drainOnce()).toBe(0);
    expect(delivered(message.subject)).toHaveLength(1);
  });

  it('a mail enqueued in a rolled-back transaction does not exist and is never sent', async () => {
    const { message } = secretMessage();
    let id = '';
    await expect(
      h.database.db.transaction(async (tx) => {
        id = await h.container.mail.enqueue(tx, h.tenant.tenantId, message);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(id).not.toBe('');
    expect(await queue().findById(h.tenant.tenantId, id)).toBeUndefined();
    expect(await h.container.mail.worker.drainOnce()).toBe(0);
    expect(delivered(message.subject)).toHaveLength(0);
  });

  it('with the mail server down the mail waits, with backoff, and is delivered exactly once when it is back', async () => {
    const { message } = secretMessage();
    const id = await enqueueCommitted(message);
    await withServerDown(async () => {
      expect(await h.container.mail.worker.drainOnce()).toBe(1);
      const row = await queue().findById(h.tenant.tenantId, id);
      expect(row).toMatchObject({ status: 'pending', attempts: 1, sentAt: null });
      expect(row!.nextAttemptAt!.getTime()).toBe(h.clock.now().getTime() + 5_000);
      expect(row!.lastError).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
      // Not due yet: nothing is attempted until the clock reaches next_attempt_at.
      h.clock.advance(4_999);
      expect(await h.container.mail.worker.drainOnce()).toBe(0);
    });
    h.clock.advance(1);
    expect(await h.container.mail.worker.drainOnce()).toBe(1);
    await catcher.waitFor((m) => m.subject === message.subject);
    expect(await queue().findById(h.tenant.tenantId, id)).toMatchObject({ status: 'sent', attempts: 2 });
    h.clock.advance(60 * 60_000);
    expect(await h.container.mail.worker.drainOnce()).toBe(0);
    expect(delivered(message.subject)).toHaveLength(1);
  });

  it(`after ${MAX_ATTEMPTS} failed attempts the mail is failed and no longer tried`, async () => {
    const { message } = secretMessage();
    const id = await enqueueCommitted(message);
    await withServerDown(async () => {
      expect(await h.container.mail.worker.drainOnce()).toBe(1);
      h.clock.advance(5_000);
      expect(await h.container.mail.worker.drainOnce()).toBe(1);
      expect(await queue().findById(h.tenant.tenantId, id)).toMatchObject({ status: 'pending', attempts: 2 });
      h.clock.advance(30_000);
      expect(await h.container.mail.worker.drainOnce()).toBe(1);
    });
    const row = await queue().findById(h.tenant.tenantId, id);
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null, sentAt: null, text: '', html: '' });
    expect(row!.lastError).toBeTruthy();
    h.clock.advance(24 * 60 * 60_000);
    expect(await h.container.mail.worker.drainOnce()).toBe(0);
    expect(delivered(message.subject)).toHaveLength(0);
  });

  it('a recipient the server refuses for good (550) is failed at once', async () => {
    const { message } = secretMessage(`nobody@example.com`);
    const id = await enqueueCommitted(message);
    expect(await h.container.mail.worker.drainOnce()).toBe(1);
    const row = await queue().findById(h.tenant.tenantId, id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row!.lastError).toMatch(/^EENVELOPE 550/);
  });

  it('two workers draining the same outbox at once deliver every mail exactly once', async () => {
    const messages = Array.from({ length: 12 }, () => secretMessage().message);
    for (const m of messages) await enqueueCommitted(m);
    const transport = createSmtpTransport(catcher.url);
    const make = () =>
      createMailWorker({
        db: h.database.db,
        transport,
        clock: h.clock,
        logger: h.app.log as never,
        from: 'Bastion <no-reply@bastion.local>',
        batchSize: 3,
        tenantIds: () => [h.tenant.tenantId],
      });
    const workers = [make(), make()];
    let handled = 0;
    for (;;) {
      const counts = await Promise.all(workers.map((w) => w.drainOnce()));
      const sum = counts.reduce((a, b) => a + b, 0);
      if (sum === 0) break;
      handled += sum;
    }
    expect(handled).toBe(12);
    for (const m of messages) {
      await catcher.waitFor((mail) => mail.subject === m.subject);
      expect(delivered(m.subject)).toHaveLength(1);
    }
    await transport.close();
  });

  it("records a batch's sent mail in one statement, and leaves a row whose lease passed to another worker", async () => {
    const messages = Array.from({ length: 4 }, () => secretMessage().message);
    const ids: string[] = [];
    for (const m of messages) ids.push(await enqueueCommitted(m));
    const statements = await statementsDuring(h.database, () => h.container.mail.worker.drainOnce());
    const marks = statements.filter((s) => /update mail_outbox m set status = 'sent'/.test(s));
    expect(marks).toHaveLength(1);
    expect(statements.filter((s) => /\bmail_outbox\b/.test(s))).toHaveLength(2); // the claim and the mark
    for (const id of ids) expect(await queue().findById(h.tenant.tenantId, id)).toMatchObject({ status: 'sent', attempts: 1, text: '', html: '' });
    for (const m of messages) expect(delivered(m.subject)).toHaveLength(1);

    // Claimed at attempt 1 and, its lease over, again at attempt 2 by another worker: the first
    // worker's record of attempt 1 changes nothing; the second's is recorded.
    const { message } = secretMessage();
    const id = await enqueueCommitted(message);
    const now = h.clock.now();
    const [first] = await queue().claimDue(now, 10, new Date(now.getTime() + 1_000), [h.tenant.tenantId]);
    const later = new Date(now.getTime() + 2_000);
    const [second] = await queue().claimDue(later, 10, new Date(later.getTime() + 1_000), [h.tenant.tenantId]);
    expect([first?.id, first?.attempts, second?.id, second?.attempts]).toEqual([id, 1, id, 2]);
    expect(await queue().markSentMany([first!], later)).toEqual(new Set());
    expect(await queue().findById(h.tenant.tenantId, id)).toMatchObject({ status: 'pending', attempts: 2, text: message.text });
    expect(await queue().markSentMany([second!], later)).toEqual(new Set([id]));
    expect(await queue().findById(h.tenant.tenantId, id)).toMatchObject({ status: 'sent', attempts: 2, sentAt: later, text: '', html: '' });
  });

  it('start() polls on its own and stop() waits for the batch in flight', async () => {
    const { message } = secretMessage();
    await enqueueCommitted(message);
    h.container.mail.worker.start();
    try {
      await catcher.waitFor((m) => m.subject === message.subject, 5_000);
    } finally {
      await h.container.mail.worker.stop();
    }
    expect(delivered(message.subject)).toHaveLength(1);
  });

  it('logs ids and attempts of deliveries, never a subject, body, code or link', async () => {
    const { message, code, token } = secretMessage();
    const id = await enqueueCommitted(message);
    await withServerDown(async () => {
      await h.container.mail.worker.drainOnce();
    });
    h.clock.advance(5_000);
    await h.container.mail.worker.drainOnce();
    await catcher.waitFor((m) => m.subject === message.subject);

    const lines = h.logs.lines.filter((l) => l.includes(id));
    expect(lines.some((l) => l.includes('will retry') && l.includes('"attempts":1'))).toBe(true);
    expect(lines.some((l) => l.includes('mail sent') && l.includes('"attempts":2'))).toBe(true);
    const text = h.logs.text();
    for (const secret of [code, token, message.subject, message.text, message.to]) expectSecretAbsent(text, secret);
    const row = await queue().findById(h.tenant.tenantId, id);
    expect(row!.lastError).toBeNull();
  });

  it('last_error never holds the message', async () => {
    const { message, code, token } = secretMessage();
    const id = await enqueueCommitted(message);
    await withServerDown(async () => {
      await h.container.mail.worker.drainOnce();
      const row = await queue().findById(h.tenant.tenantId, id);
      for (const secret of [code, token, message.subject]) expectSecretAbsent(row!.lastError ?? '', secret);
    });
    h.clock.advance(5_000);
    await h.container.mail.worker.drainOnce();
  });

  it('rejects a message that is not for exactly one recipient, or has an empty subject', async () => {
    const ok = secretMessage().message;
    for (const bad of [{ ...ok, to: 'a@example.com, b@example.com' }, { ...ok, to: 'a@example.com\nBcc: c@example.com' }, { ...ok, subject: ' \r\n ' }]) {
      await expect(enqueueCommitted(bad)).rejects.toThrow(/enqueueMail/);
    }
  });
});

describe('.eml file transport (no SMTP_URL)', () => {
  let fh: Harness;
  beforeAll(async () => {
    fh = await createHarness();
  });
  afterAll(async () => fh.close());

  it('writes a parseable RFC 822 file <timestamp>-<id>.eml, mode 0600, under DATA_DIR/mail', async () => {
    expect(fh.container.mail.transport.kind).toBe('file');
    const { message } = secretMessage();
    const id = await fh.database.db.transaction((tx) => fh.container.mail.enqueue(tx, fh.tenant.tenantId, message));
    expect(await fh.container.mail.worker.drainOnce()).toBe(1);

    const dir = join(fh.dataDir, 'mail');
    const files = readdirSync(dir).filter((f) => f.endsWith(`-${id}.eml`));
    expect(files).toHaveLength(1);
    const stamp = fh.clock.now().toISOString().replace(/[:.]/g, '-');
    expect(files[0]).toBe(`${stamp}-${id}.eml`);
    const path = join(dir, files[0]!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const parsed = await simpleParser(readFileSync(path));
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.text?.trim()).toBe(message.text);
    expect(parsed.html).toContain(message.html);
    expect(parsed.messageId).toBe(`<${id}@bastion.local>`);
    expect(await createMailQueue(fh.database.db).findById(fh.tenant.tenantId, id)).toMatchObject({ status: 'sent' });
  });

  it('can be used on its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bastion-mail-'));
    const transport = createFileTransport(join(dir, 'mail'), new ManualClock(new Date('2030-01-02T03:04:05.678Z')));
    await transport.send({ id: 'abc', from: 'x@y.test', to: 'z@y.test', subject: 'S', text: 'T', html: '<p>T</p>' });
    expect(readdirSync(join(dir, 'mail'))).toEqual(['2030-01-02T03-04-05-678Z-abc.eml']);
    expect(statSync(join(dir, 'mail')).mode & 0o777).toBe(0o700);
  });
});

describe('renderMail', () => {
  it('escapes every inserted value and keeps the text part complete', () => {
    const mail = renderMail({
      title: 'Verify <your> "email"',
      intro: 'Hello <script>alert(1)</script> & welcome',
      code: '<123456>',
      link: { url: 'https://app.test/verify?token=a&b="c"', label: 'Verify <now>' },
      outro: "If this wasn't you, ignore it.",
    });
    expect(mail.subject).toBe('Verify <your> "email"');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; welcome');
    expect(mail.html).toContain('&lt;123456&gt;');
    expect(mail.html).toContain('href="https://app.test/verify?token=a&amp;b=%22c%22"');
    expect(mail.html).toContain('Verify &lt;now&gt;');
    expect(mail.html).toContain('wasn&#39;t');
    expect(mail.html).not.toMatch(/<img|<link|@import|url\(/i);
    expect(mail.text).toContain('Your code: <123456>');
    expect(mail.text).toContain('Verify <now>: https://app.test/verify?token=a&b=%22c%22');
    expect(mail.text).toContain("If this wasn't you, ignore it.");
  });

  it('refuses a link that is not http(s)', () => {
    expect(() => renderMail({ title: 't', intro: 'i', link: { url: 'javascript:alert(1)', label: 'x' } })).toThrow(/http/);
  });
});
