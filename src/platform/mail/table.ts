import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../tenancy/table.js';

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * Transactional mail outbox: a message is written here in the transaction that makes the state
 * change (so it exists iff the change committed), and the mail worker delivers it from here,
 * retrying with backoff while the mail server is unreachable.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    /** Bodies are erased (set to '') once the row is sent or failed: they hold codes and links. */
    text: text('text').notNull(),
    html: text('html').notNull(),
    status: text('status').$type<MailStatus>().notNull().default('pending'),
    /** Delivery attempts started so far. */
    attempts: integer('attempts').notNull().default(0),
    /**
     * When the worker may (re)try. Null: never tried, due at once (whatever clock the caller
     * had). While an attempt runs it holds the lease end, so a crashed worker's row comes back.
     */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    /** Error code and server reply of the last failure; never any part of the message. */
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ name: 'mail_outbox_pkey', columns: [t.tenantId, t.id] }),
    index('mail_outbox_due_idx')
      .on(t.nextAttemptAt.asc().nullsFirst(), t.id)
      .where(sql`status = 'pending'`),
    check('mail_outbox_status_check', sql`${t.status} in ('pending', 'sent', 'failed')`),
  ],
);

export type MailRow = typeof mailOutbox.$inferSelect;
