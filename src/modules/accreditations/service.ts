import type { SQLWrapper } from 'drizzle-orm';
import { actorFromAudit, auditActor, type Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent } from '../../platform/events/outbox.js';
import type { Viewer } from '../../platform/http/context.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { AuditService } from '../audit/service.js';
import type { AuditEventRow } from '../audit/table.js';
import type { UsersService } from '../users/service.js';
import { AccreditationErrors } from './errors.js';
import type { AccreditationsRepo } from './repo.js';
import type { AccreditationDto, CreateAccreditationInput, DecisionInput } from './schemas.js';
import type { AccreditationRow } from './table.js';

/** The call context an accreditation operation reads (the own-record rule, `users.actingFor`). */
export type AccreditationCaller = Viewer & { tenantId: string; actor: Actor };

export type IdentityChanged = (tenantId: string, userId: string, db: DbOrTx) => Promise<void>;

function toDto(row: AccreditationRow, history: AuditEventRow[]): AccreditationDto {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type,
    documentIds: row.documentIds,
    notes: row.notes,
    status: row.status,
    reason: row.reason,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    history: history.map((a) => {
      const step = a.details as { from?: string | null; to: string; reason?: string | null };
      return { from: step.from ?? null, to: step.to, actor: actorFromAudit(a.actorType, a.actorId), reason: step.reason ?? null, at: a.createdAt.toISOString() };
    }),
  };
}

/**
 * Accreditation claims: submitted by the user (or for them by the tenant), decided once by an
 * admin or API key. Every step is audited and written to the outbox in its transaction.
 */
export function createAccreditationsService(deps: {
  repo: AccreditationsRepo;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  audit: AuditService;
  identityChanged: IdentityChanged;
  /** Do these ids all name documents of this user? (The documents module answers.) */
  documentsOwned: (tenantId: string, userId: string, ids: string[]) => Promise<boolean>;
}) {
  const { repo, tx, clock, users, audit, identityChanged, documentsOwned } = deps;

  /** A step of the claim's history, in the audit log (the one history store). */
  async function recordHistory(db: DbOrTx, tenantId: string, claim: { id: string; userId: string }, from: string | null, to: string, reason: string | null, actor: Actor): Promise<void> {
    await audit.record(db, tenantId, {
      type: 'accreditation.transition',
      ...auditActor(actor),
      subjectUserId: claim.userId,
      object: { type: 'accreditation', id: claim.id },
      details: { from, to, reason },
    });
  }

  async function withHistory(tenantId: string, row: AccreditationRow, db?: DbOrTx): Promise<AccreditationDto> {
    return toDto(row, await audit.history(tenantId, 'accreditation', [row.id], db));
  }

  return {
    /** A plain user claims for themself (naming another user is 404); an API key or admin names the user (an admin defaults to itself). */
    async submit(ctx: AccreditationCaller, input: CreateAccreditationInput): Promise<AccreditationDto> {
      const { tenantId, actor } = ctx;
      const userId = await users.actingFor(ctx, input.userId, AccreditationErrors.userIdRequired);
      // Another user's document and no document answer alike (no probing of ids).
      if (input.documentIds?.length && !(await documentsOwned(tenantId, userId, input.documentIds))) throw AccreditationErrors.documentsUnknown();
      const now = clock.now();
      return tx(async (db) => {
        const row = await repo.insert(
          tenantId,
          {
            id: newId(),
            userId,
            type: input.type,
            documentIds: input.documentIds ?? [],
            notes: input.notes ?? null,
            status: 'pending',
            reason: null,
            decidedAt: null,
            createdAt: now,
            updatedAt: now,
          },
          db,
        );
        await recordHistory(db, tenantId, row, null, 'pending', null, actor);
        await appendEvent(db, tenantId, 'accreditation.submitted', { accreditationId: row.id, userId, type: row.type, actor });
        return withHistory(tenantId, row, db);
      });
    },

    async listForUser(ctx: Viewer & { tenantId: string }, requested: string, page: PageParams): Promise<Page<AccreditationDto>> {
      const { tenantId } = ctx;
      const userId = await users.actingFor(ctx, requested, AccreditationErrors.userIdRequired);
      const result = await paginate(
        () => repo.countByUser(tenantId, userId),
        () => repo.listByUser(tenantId, userId, page),
        (row) => row,
      );
      const history = await audit.history(tenantId, 'accreditation', result.data.map((row) => row.id));
      return { total: result.total, data: result.data.map((row) => toDto(row, history.filter((a) => a.objectId === row.id))) };
    },

    /** Every pending claim of the tenant, oldest first (an admin's or the back end's review queue). */
    async listPending(tenantId: string, page: PageParams): Promise<Page<AccreditationDto>> {
      const result = await paginate(
        () => repo.countPending(tenantId),
        () => repo.listPending(tenantId, page),
        (row) => row,
      );
      const history = await audit.history(tenantId, 'accreditation', result.data.map((row) => row.id));
      return { total: result.total, data: result.data.map((row) => toDto(row, history.filter((a) => a.objectId === row.id))) };
    },

    /** Decides a pending claim; a claim is decided once (a second decision is 409). */
    async decide(tenantId: string, id: string, input: DecisionInput, actor: Actor): Promise<AccreditationDto> {
      return tx(async (db) => {
        const row = await repo.findById(tenantId, id, db, true);
        if (!row) throw AccreditationErrors.notFound();
        if (row.status !== 'pending') throw AccreditationErrors.alreadyDecided(row.status);
        const now = clock.now();
        const updated = await repo.update(tenantId, id, { status: input.decision, reason: input.reason ?? null, decidedAt: now, updatedAt: now }, db);
        await recordHistory(db, tenantId, row, 'pending', input.decision, input.reason ?? null, actor);
        await appendEvent(db, tenantId, 'accreditation.decided', {
          accreditationId: id,
          userId: row.userId,
          decision: input.decision,
          reason: input.reason ?? null,
          actor,
        });
        await identityChanged(tenantId, row.userId, db);
        return withHistory(tenantId, updated, db);
      });
    },

    /** Identity fields: the user's most recently decided claim. */
    identitySource: {
      read: (tenantId: SQLWrapper, userId: SQLWrapper) => repo.latestDecidedJson(tenantId, userId),
      fields(read: unknown): Record<string, string | null> {
        const row = read as { status: string; type: string } | null;
        return { 'accreditation.status': row?.status ?? null, 'accreditation.type': row?.type ?? null };
      },
    },
  };
}

export type AccreditationsService = ReturnType<typeof createAccreditationsService>;
