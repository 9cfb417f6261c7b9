import type { DbOrTx } from '../../platform/db/client.js';
import type { TemplateWrite } from '../../platform/db/write-together.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { MailContent } from '../../platform/mail/render.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/table.js';
import { AuthErrors } from './errors.js';
import type { AuthMailer } from './mailer.js';
import type { OneTimeService } from './one-time.js';

export const VERIFY_TOKEN_TTL_MS = 24 * 3600_000;

/** The verification mail: the code, and the link to the confirmation page when there is one. */
export function verificationMailContent(code: string, linkUrl: string | undefined): MailContent {
  return {
    title: 'Confirm your email address',
    intro: linkUrl
      ? 'Open the link below to confirm this address, or enter this code where you signed up. The link is valid for 24 hours, the code for 10 minutes.'
      : 'Enter this code to confirm your email address. It is valid for 10 minutes.',
    code,
    link: linkUrl ? { url: linkUrl, label: 'Confirm my email' } : undefined,
    outro: 'If you did not create an account, ignore this message.',
  };
}

/**
 * Email verification in three variants, all proving control of the mailbox: a single-use
 * token from the mail (POST /auth/email/verify-token, or presented as the bearer of the
 * legacy GET /auth/email/verify), or the 6-digit code from the same mail.
 */
export function createVerificationService(deps: { tx: RunInTx; users: UsersService; oneTime: OneTimeService; mailer: AuthMailer }) {
  const { tx, users, oneTime, mailer } = deps;

  const content = (tenant: TenantContext, code: string, token: string | undefined) =>
    verificationMailContent(code, token === undefined ? undefined : mailer.link(tenant, 'verify-email', token));

  async function send(db: DbOrTx, tenant: TenantContext, user: UserRow, withLink: boolean): Promise<void> {
    if (!(await mailer.allow(tenant.id, user.email, 'verify'))) return;
    const code = await oneTime.issueCode(db, tenant.id, user.id, 'email_verify_code');
    const token = withLink ? await oneTime.issueToken(db, tenant.id, user.id, 'email_verify_token', VERIFY_TOKEN_TTL_MS) : undefined;
    await mailer.send(db, tenant.id, user.email, content(tenant, code, token));
  }

  return {
    /**
     * The first mail of a registration (link and code), as writes built but not run, to commit
     * in the statement that creates the user (its code, its token, the mail); `sent` counts it
     * against the address's mail cap once that statement committed. One per account (its
     * address is unique): sent even while the cap cannot be counted. None when the address's
     * cap is reached (a mail of an earlier, failed or deleted registration).
     */
    async initialMail(db: DbOrTx, tenant: TenantContext, user: UserRow): Promise<{ writes: TemplateWrite[]; sent(): Promise<void> } | undefined> {
      const cap = await mailer.may(tenant.id, user.email, 'verify', true);
      if (!cap) return undefined;
      const code = oneTime.newUserCode(db, tenant.id, user.id, 'email_verify_code');
      const token = oneTime.tokenStatement(db, tenant.id, user.id, 'email_verify_token', VERIFY_TOKEN_TTL_MS);
      const mail = mailer.statement(db, tenant.id, user.email, content(tenant, code.code, token.token));
      return { writes: [code.statement, token.statement, mail], sent: cap.sent };
    },

    /** Generic: does nothing visible when the account does not exist or is verified. */
    async resend(tenant: TenantContext, email: string, withLink: boolean): Promise<void> {
      const user = await users.findRowByEmail(tenant.id, email);
      if (!user || user.emailVerified) return;
      await tx((db) => send(db, tenant, user, withLink));
    },

    async verifyToken(tenant: TenantContext, token: string, expectedEmail?: string): Promise<void> {
      await tx(async (db) => {
        const row = await oneTime.consumeToken(tenant.id, ['email_verify_token'], token, db);
        const user = row ? await users.findRow(tenant.id, row.userId, db) : undefined;
        if (!user || (expectedEmail !== undefined && user.email !== expectedEmail.trim().toLowerCase())) throw AuthErrors.invalidToken();
        await users.markEmailVerified(tenant.id, user, db);
      });
    },

    async verifyCode(tenant: TenantContext, email: string, code: string): Promise<void> {
      const user = await users.findRowByEmail(tenant.id, email);
      if (!user) throw AuthErrors.invalidCode();
      // A wrong code must still count: decide inside the transaction, throw after it commits.
      const ok = await tx(async (db) => {
        const check = await oneTime.consumeCode(tenant.id, user.id, 'email_verify_code', code, db);
        if (check.ok) await users.markEmailVerified(tenant.id, user, db);
        return check.ok;
      });
      if (!ok) throw AuthErrors.invalidCode();
    },
  };
}

export type VerificationService = ReturnType<typeof createVerificationService>;
