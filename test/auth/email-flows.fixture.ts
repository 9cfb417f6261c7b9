import { afterAll, beforeAll } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { startMailHarness, type MailHarness } from '../helpers/mailbox.js';

/**
 * The email-flow tests' shared setup: an app with a real SMTP server and its mailbox (started
 * once per file), and the calls every file makes. `env.h` and `env.box` are set before the
 * file's own beforeAll hooks run.
 */
export function emailFlowsFixture() {
  const env = {} as { h: Harness; box: MailHarness['box']; mail?: MailHarness };
  beforeAll(async () => {
    env.mail = await startMailHarness();
    env.h = env.mail.h;
    env.box = env.mail.box;
  });
  afterAll(async () => env.mail?.close());

  const t = () => ({ 'x-tenant-id': env.h.tenant.tenantId });
  const post = (url: string, payload: object, headers: Record<string, string> = t()) => env.h.inject({ method: 'POST', url, headers, payload });
  return {
    env,
    t,
    post,
    register: (email: string) => post('/auth/email', { email, password: 'a long enough passphrase' }),
    verified: async (email: string) => (await env.h.container.users.findRowByEmail(env.h.tenant.tenantId, email))!.emailVerified,
    login: (email: string, password: string) => post('/auth/login', { email, password }),
    /** A registered account whose confirmation mail has been read. */
    async account(email: string, password = 'the original passphrase') {
      await post('/auth/email', { email, password });
      await env.box.next(email, /Confirm/);
    },
  };
}
