import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { SQLWrapper } from 'drizzle-orm';
import { writeTogether } from '../../platform/db/write-together.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { auditActor, SYSTEM_ACTOR, type Actor } from '../../platform/audit/actor.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { KycErrors } from './errors.js';
import type { KycRepo } from './repo.js';
import { canTransition, eventFor, EXPIRING_STATUSES, type KycStatus } from './state.js';
import type { KycRow, NewKycRow } from './table.js';

export type { Actor };

/** Called in the transaction of every change to a user's KYC (the identity root is recomputed). */
export type IdentityChanged = (tenantId: string, userId: string, db: DbOrTx) => Promise<void>;

type RecordChanges = Partial<Omit<NewKycRow, 'tenantId' | 'id' | 'userId' | 'createdAt' | 'status'>>;

/**
 * The one place a KYC record changes state: checks the transition, stores it with who, when,
 * from, to and why, writes the outbox event, and reflects the latest attempt on the user.
 * Every function runs inside the caller's transaction.
 */
export function createKycTransitions(deps: {
  repo: KycRepo;
  users: UsersService;
  audit: AuditService;
  clock: Clock;
  identityChanged: IdentityChanged;
}) {
  const { repo, users, audit, clock, identityChanged } = deps;

  /** A step of the record's history, in the audit log (the one history store), as a write for writeTogether. */
  function historyStatement(
    tenantId: string,
    row: KycRow,
    step: { action: 'transition' | 'update'; from: KycStatus | null; to: KycStatus; changes: Record<string, unknown> | null; reason: string | null },
    actor: Actor,
  ): SQLWrapper {
    return audit.statement(tenantId, {
      type: `kyc.${step.action}`,
      ...auditActor(actor),
      subjectUserId: row.userId,
      object: { type: 'kyc', id: row.id },
      details: { from: step.from, to: step.to, changes: step.changes, reason: step.reason },
    });
  }

  /**
   * The user's shown KYC status (its latest attempt's), as a write for the writeTogether of a
   * change of `row` (as it is after the change): made only while `row` is the user's latest attempt;
   * a change of an older one leaves the user as it is.
   */
  function userStatusStatement(db: DbOrTx, tenantId: string, row: KycRow): SQLWrapper {
    return users.kycStatusStatement(tenantId, row.userId, row.status, repo.isLatestOfUser(tenantId, row.userId, row.id), db);
  }

  function eventPayload(row: KycRow, from: KycStatus | null, to: KycStatus, actor: Actor, reason: string | null) {
    return { kycId: row.id, userId: row.userId, provider: row.provider, from, to, reason, actor };
  }

  /** The fields of `changes` whose value differs from the record's (an undefined value is no change, as drizzle's `set` skips it). */
  function changedOnly(row: KycRow, changes: RecordChanges): RecordChanges {
    return Object.fromEntries(
      Object.entries(changes).filter(([key, value]) => value !== undefined && (row as Record<string, unknown>)[key] !== value),
    ) as RecordChanges;
  }

  /** Moves `row`, read under its lock in the transaction `db` (repo.findById with lock), to `to`. */
  async function move(
    db: DbOrTx,
    tenantId: string,
    row: KycRow,
    to: KycStatus,
    actor: Actor,
    reason: string | null,
    changes: RecordChanges = {},
  ): Promise<KycRow> {
    if (!canTransition(row.status, to)) throw KycErrors.invalidTransition(row.status, to);
    changes = changedOnly(row, changes);
    const now = clock.now();
    const decided = to === 'approved' || to === 'declined';
    const set = { ...changes, status: to, reason, updatedAt: now, ...(decided ? { decidedAt: now } : {}) };
    // `row` was read under its lock in this transaction: the record after the change is known.
    const updated: KycRow = { ...row, ...set };
    const stored = Object.keys(changes).length > 0 ? (changes as Record<string, unknown>) : null;
    // The change, its history step, its event and the user's shown status commit in one statement.
    await writeTogether(db, [
      repo.updateStatement(tenantId, row.id, set, db),
      historyStatement(tenantId, row, { action: 'transition', from: row.status, to, changes: stored, reason }, actor),
      appendEventStatement(db, tenantId, eventFor(to), eventPayload(updated, row.status, to, actor, reason)),
      userStatusStatement(db, tenantId, updated),
    ]);
    await identityChanged(tenantId, row.userId, db);
    return updated;
  }

  return {
    move,

    /** Inserts a new attempt in status `created`, audited and announced like a transition. */
    async create(db: DbOrTx, tenantId: string, row: Omit<NewKycRow, 'tenantId' | 'status'>, actor: Actor): Promise<KycRow> {
      const created = await repo.insert(tenantId, { ...row, status: 'created' }, db);
      await writeTogether(db, [
        historyStatement(tenantId, created, { action: 'transition', from: null, to: 'created', changes: null, reason: null }, actor),
        appendEventStatement(db, tenantId, eventFor('created'), eventPayload(created, null, 'created', actor, null)),
        userStatusStatement(db, tenantId, created),
      ]);
      await identityChanged(tenantId, created.userId, db);
      return created;
    },

    /** Records a manual change of fields (no status change), with the old and new values. */
    async update(db: DbOrTx, tenantId: string, row: KycRow, changes: RecordChanges, actor: Actor, reason: string | null): Promise<KycRow> {
      const diff: Record<string, { from: unknown; to: unknown }> = {};
      for (const [key, value] of Object.entries(changedOnly(row, changes))) {
        diff[key] = { from: (row as Record<string, unknown>)[key] ?? null, to: value ?? null };
      }
      if (Object.keys(diff).length === 0) return row;
      const now = clock.now();
      const updated = (await repo.update(tenantId, row.id, { ...changes, updatedAt: now }, db))!;
      await writeTogether(db, [
        historyStatement(tenantId, row, { action: 'update', from: row.status, to: row.status, changes: diff, reason }, actor),
        appendEventStatement(db, tenantId, 'kyc.updated', { kycId: row.id, userId: row.userId, fields: Object.keys(diff), actor, reason }),
      ]);
      await identityChanged(tenantId, row.userId, db);
      return updated;
    },

    /** A session not finished within its lifetime becomes `expired` (by the system). */
    async expireIfDue(db: DbOrTx, tenantId: string, row: KycRow): Promise<KycRow> {
      if (!EXPIRING_STATUSES.includes(row.status) || clock.now().getTime() < row.expiresAt.getTime()) return row;
      return move(db, tenantId, row, 'expired', SYSTEM_ACTOR, 'session expired');
    },

    isDue(row: KycRow): boolean {
      return EXPIRING_STATUSES.includes(row.status) && clock.now().getTime() >= row.expiresAt.getTime();
    },
  };
}

export type KycTransitions = ReturnType<typeof createKycTransitions>;
