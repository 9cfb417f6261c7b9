import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { TemplateWrite } from '../../platform/db/write-together.js';
import type { TenantContext } from '../../platform/http/guards.js';
import { enqueueMail, enqueueMailStatement } from '../../platform/mail/outbox.js';
import { renderMail, type MailContent } from '../../platform/mail/render.js';
import { isRateLimitUnavailable, type RateLimiter } from '../../platform/ratelimit/limiter.js';
import type { OneTimeService } from './one-time.js';
import type { OneTimePurpose } from './table.js';

/** Per address and purpose: at most 5 mails in 10 minutes, at least 60 seconds apart. */
const CAP_PER_WINDOW = 5;
const CAP_WINDOW_MS = 10 * 60_000;
const CAP_GAP_MS = 60_000;

export type LinkPage = 'verify-email' | 'reset-password';

/**
 * Mail of the authentication flows. Links never carry an action: they open a page (the
 * tenant's app, or Bastion's own) that confirms with a POST, so a mail scanner fetching the
 * link consumes nothing.
 */
export function createAuthMailer(deps: { limiter: RateLimiter; clock: Clock; publicBaseUrl: () => string; oneTime: OneTimeService }) {
  const { limiter, clock, publicBaseUrl, oneTime } = deps;

  async function send(db: DbOrTx, tenantId: string, to: string, content: MailContent): Promise<void> {
    await enqueueMail(db, tenantId, { to, ...renderMail(content) }, { now: clock.now() });
  }

  const capKey = (tenantId: string, email: string, purpose: string) => `mail:${tenantId}:${purpose}:${email}`;

  /** True when the cap lets another mail of this purpose go to this address now (counts nothing). */
  async function underCap(key: string): Promise<boolean> {
    const gap = await limiter.peek(`${key}:gap`, 1);
    const window = await limiter.peek(key, CAP_PER_WINDOW);
    return gap.allowed && window.allowed;
  }

  async function count(key: string): Promise<void> {
    await limiter.hit(`${key}:gap`, 1, CAP_GAP_MS);
    await limiter.hit(key, CAP_PER_WINDOW, CAP_WINDOW_MS);
  }

  return {
    /**
     * True when another mail of this purpose may go to this address now; counts it. Silent cap.
     * While the limiter's store (Redis) does not answer: `whenUnavailable` (default false, no
     * mail, the same answer as a capped one, so nothing tells whether the address has an account).
     */
    async allow(tenantId: string, email: string, purpose: string, whenUnavailable = false): Promise<boolean> {
      const key = capKey(tenantId, email, purpose);
      try {
        if (!(await underCap(key))) return false;
        await count(key);
        return true;
      } catch (error) {
        if (isRateLimitUnavailable(error)) return whenUnavailable;
        throw error;
      }
    },

    /**
     * allow() in two steps, for a mail written in one statement with its change: `may` checks
     * the cap (as allow does, `whenUnavailable` included) without counting; `sent` counts the
     * mail once that statement committed, so a change that fails (a taken address) counts none.
     * A limiter store that does not answer at `sent` leaves the mail uncounted.
     */
    async may(tenantId: string, email: string, purpose: string, whenUnavailable = false): Promise<{ sent(): Promise<void> } | undefined> {
      const key = capKey(tenantId, email, purpose);
      try {
        if (!(await underCap(key))) return undefined;
      } catch (error) {
        if (isRateLimitUnavailable(error)) return whenUnavailable ? { sent: async () => undefined } : undefined;
        throw error;
      }
      return {
        async sent() {
          try {
            await count(key);
          } catch (error) {
            if (!isRateLimitUnavailable(error)) throw error;
          }
        },
      };
    },

    link(tenant: TenantContext, page: LinkPage, token: string): string {
      const appUrl = typeof tenant.settings.appUrl === 'string' ? tenant.settings.appUrl.replace(/\/+$/, '') : undefined;
      const query = new URLSearchParams({ tenant: tenant.id, token }).toString();
      return appUrl ? `${appUrl}/${page}?${query}` : `${publicBaseUrl()}/auth/pages/${page}?${query}`;
    },

    send,

    /** The mail as send() writes it, not yet run (writeTogether). */
    statement(db: DbOrTx, tenantId: string, to: string, content: MailContent): TemplateWrite {
      return enqueueMailStatement(db, tenantId, { to, ...renderMail(content) }, { now: clock.now() });
    },

    /** Issues a fresh code of this purpose (voiding the last) and mails it, in the caller's transaction. */
    async sendCode(db: DbOrTx, tenantId: string, user: { id: string; email: string }, purpose: OneTimePurpose, content: Omit<MailContent, 'code'>): Promise<void> {
      const code = await oneTime.issueCode(db, tenantId, user.id, purpose);
      await send(db, tenantId, user.email, { ...content, code });
    },
  };
}

export type AuthMailer = ReturnType<typeof createAuthMailer>;
