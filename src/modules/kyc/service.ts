import type { SQLWrapper } from 'drizzle-orm';
import type { Clock } from '../../platform/clock.js';
import { countedPage } from '../../platform/db/counted-page.js';
import { newId } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { Viewer } from '../../platform/http/context.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { Providers } from '../../platform/providers/service.js';
import { ownedBy } from '../users/acting-for.js';
import type { UsersService } from '../users/service.js';
import { KycErrors } from './errors.js';
import type { KycFilters, KycRepo } from './repo.js';
import type {
  CreateSessionInput,
  InitiateKycInput,
  KycAttemptDetailDto,
  KycAttemptDto,
  SessionCreatedDto,
  UpdateKycInput,
} from './schemas.js';
import { SESSION_TTL_MS } from './state.js';

import type { KycRow } from './table.js';
import { actorFromAudit } from '../../platform/audit/actor.js';
import type { AuditService } from '../audit/service.js';
import type { AuditEventRow } from '../audit/table.js';
import type { Actor, KycTransitions } from './transitions.js';

const EXPIRY_BATCH = 100;

/** The call context a KYC operation reads: the tenant, who calls and may act for whom, and the actor recorded. */
export type KycCaller = Viewer & { tenantId: string; actor: Actor };

export function toKycDto(row: KycRow): KycAttemptDto {
  return {
    kycId: row.id,
    userId: row.userId,
    provider: row.provider,
    flow: row.flow,
    status: row.status,
    sessionUrl: row.sessionUrl,
    reason: row.reason,
    firstName: row.firstName,
    lastName: row.lastName,
    dateOfBirth: row.dateOfBirth,
    country: row.country,
    documentType: row.documentType,
    level: row.level,
    walletAddress: row.walletAddress,
    walletChain: row.walletChain,
    walletVerified: row.walletVerified,
    expiresAt: row.expiresAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A step of the record's history, as the audit log keeps it (kyc.transition, kyc.update). */
function toHistory(row: AuditEventRow): KycAttemptDetailDto['history'][number] {
  const step = row.details as { from?: string | null; to?: string | null; changes?: Record<string, unknown> | null; reason?: string | null };
  return {
    action: row.type === 'kyc.update' ? 'update' : 'transition',
    from: step.from ?? null,
    to: step.to ?? null,
    changes: step.changes ?? null,
    actor: actorFromAudit(row.actorType, row.actorId),
    reason: step.reason ?? null,
    at: row.createdAt.toISOString(),
  };
}

export function sessionCreated(row: KycRow): SessionCreatedDto {
  return { kycId: row.id, provider: row.provider, status: row.status, sessionUrl: row.sessionUrl, expiresAt: row.expiresAt.toISOString() };
}

export function createKycService(deps: {
  repo: KycRepo;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  providers: Providers;
  transitions: KycTransitions;
  audit: AuditService;
  publicBaseUrl: () => string;
}) {
  const { repo, tx, clock, users, providers, transitions, audit, publicBaseUrl } = deps;

  /** The record as `viewer` may see it: another user's record (or another tenant's) is a 404 (the own-record rule). */
  async function visible(tenantId: string, kycId: string, viewer: Viewer): Promise<KycRow> {
    return freshen(tenantId, ownedBy(viewer, await repo.findById(tenantId, kycId), KycErrors.notFound));
  }

  /** Applies a due expiry before a record is shown, so a reader never sees a stale session. */
  async function freshen(tenantId: string, row: KycRow): Promise<KycRow> {
    if (!transitions.isDue(row)) return row;
    return tx(async (db) => {
      const locked = (await repo.findById(tenantId, row.id, db, true))!;
      return transitions.expireIfDue(db, tenantId, locked);
    });
  }

  /**
   * Expires the due sessions in a list's scope before it is read, so counts and status filters
   * agree with what is shown. Bounded per call; the rest expire on the following reads.
   */
  async function expireDue(tenantId: string, userId: string | undefined): Promise<void> {
    const due = await repo.findDue(tenantId, userId, clock.now(), EXPIRY_BATCH);
    for (const id of due) {
      await tx(async (db) => {
        const locked = await repo.findById(tenantId, id, db, true);
        if (locked) await transitions.expireIfDue(db, tenantId, locked);
      });
    }
  }

  async function listPage(tenantId: string, filters: KycFilters, page: PageParams): Promise<Page<KycAttemptDto>> {
    const { userId, ...others } = filters;
    if (userId !== undefined && Object.values(others).every((v) => v === undefined) && !page.afterId && !page.beforeId) {
      // A user's own list (GET /kyc/attempts polls it): the page, its total and whether any of the
      // user's attempts is due to expire, in one statement; read again only after expiring some.
      const rows = await repo.userPageWithDue(tenantId, userId, clock.now(), page);
      if (!rows.some((row) => row.due > 0)) return countedPage(rows, page, () => repo.count(tenantId, filters), toKycDto);
    }
    await expireDue(tenantId, filters.userId);
    // One user's attempts are few: the page and its total in one statement.
    if (filters.userId && !page.afterId && !page.beforeId) return countedPage(await repo.pageWithTotal(tenantId, filters, page), page, () => repo.count(tenantId, filters), toKycDto);
    return paginate(
      () => repo.count(tenantId, filters),
      () => repo.list(tenantId, filters, page),
      toKycDto,
    );
  }

  /** A session at idv-a for `userId` (who must exist: the caller's own, or the one an API key or admin names). */
  async function startIdvASession(
    tenantId: string,
    userId: string,
    input: CreateSessionInput & { country?: string; level?: string },
    actor: Actor,
  ): Promise<SessionCreatedDto> {
    const kycId = newId();
    const person = input.firstName || input.lastName ? { firstName: input.firstName, lastName: input.lastName } : undefined;
    const idv = await providers.port(tenantId, 'idv', 'idv-a');
    const session = await idv.createSession({
      kycId,
      callbackBaseUrl: publicBaseUrl(),
      flow: 'session',
      ...(input.callbackUrl ? { returnUrl: input.callbackUrl } : {}),
      ...(person ? { person } : {}),
    });
    const now = clock.now();
    const row = await tx((db) =>
      transitions.create(
        db,
        tenantId,
        {
          id: kycId,
          userId,
          provider: 'idv-a',
          flow: 'session',
          providerSessionId: session.sessionId,
          sessionUrl: session.url,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          country: input.country?.toUpperCase() ?? null,
          level: input.level ?? 'basic',
          expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
          createdAt: now,
          updatedAt: now,
        },
        actor,
      ),
    );
    return sessionCreated(row);
  }

  /** Locks the record, applies a due expiry, then the transition (409 when impossible). */
  async function review(
    tenantId: string,
    kycId: string,
    to: 'approved' | 'declined' | 'resubmission_requested',
    actor: Actor,
    reason: string | null,
    level?: string,
  ): Promise<KycAttemptDto> {
    const row = await tx(async (db) => {
      const locked = await repo.findById(tenantId, kycId, db, true);
      if (!locked) throw KycErrors.notFound();
      const current = await transitions.expireIfDue(db, tenantId, locked);
      return transitions.move(db, tenantId, current, to, actor, reason, level ? { level } : {});
    });
    return toKycDto(row);
  }

  return {
    /** POST /kyc and /kyc/idv-a/session: a session at idv-a for the calling user. */
    async createSession(ctx: KycCaller, input: CreateSessionInput | null): Promise<SessionCreatedDto> {
      const userId = await users.actingFor(ctx, undefined, KycErrors.userIdRequired);
      return startIdvASession(ctx.tenantId, userId, input ?? {}, ctx.actor);
    },

    /** POST /kyc/kyc: a registration for a user, at idv-a or as a manual record for review. */
    async initiate(ctx: KycCaller, input: InitiateKycInput): Promise<SessionCreatedDto> {
      const { userId: requested, provider = 'idv-a', ...fields } = input;
      const { tenantId, actor } = ctx;
      const userId = await users.actingFor(ctx, requested, KycErrors.userIdRequired);
      if (provider === 'idv-a') return startIdvASession(tenantId, userId, fields, actor);
      const now = clock.now();
      const row = await tx((db) =>
        transitions.create(
          db,
          tenantId,
          {
            id: newId(),
            userId,
            provider: 'manual',
            flow: 'manual',
            firstName: fields.firstName ?? null,
            lastName: fields.lastName ?? null,
            country: fields.country?.toUpperCase() ?? null,
            level: fields.level ?? 'basic',
            expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
            createdAt: now,
            updatedAt: now,
          },
          actor,
        ),
      );
      return sessionCreated(row);
    },

    async getAttempt(tenantId: string, kycId: string, viewer: Viewer): Promise<KycAttemptDetailDto> {
      const row = await visible(tenantId, kycId, viewer);
      const history = await audit.history(tenantId, 'kyc', [row.id]);
      return { ...toKycDto(row), history: history.map(toHistory) };
    },

    /** GET /kyc?userId= and /kyc/attempts: a plain user may ask only for themself (another id is a 404). */
    async listForUser(ctx: Viewer & { tenantId: string }, requested: string | undefined, page: PageParams): Promise<Page<KycAttemptDto>> {
      return users.pageActingFor(ctx, requested, KycErrors.userIdRequired, (userId) => listPage(ctx.tenantId, { userId }, page));
    },

    async listAll(tenantId: string, filters: KycFilters, page: PageParams): Promise<Page<KycAttemptDto>> {
      return listPage(tenantId, filters, page);
    },

    async update(tenantId: string, kycId: string, input: UpdateKycInput, actor: Actor): Promise<KycAttemptDto> {
      const { reason, ...fields } = input;
      const changes = { ...fields, ...(fields.country ? { country: fields.country.toUpperCase() } : {}) };
      const row = await tx(async (db) => {
        const locked = await repo.findById(tenantId, kycId, db, true);
        if (!locked) throw KycErrors.notFound();
        return transitions.update(db, tenantId, locked, changes, actor, reason ?? null);
      });
      return toKycDto(row);
    },

    approve: (tenantId: string, kycId: string, actor: Actor, reason: string | null, level?: string) =>
      review(tenantId, kycId, 'approved', actor, reason, level),
    reject: (tenantId: string, kycId: string, actor: Actor, reason: string | null) => review(tenantId, kycId, 'declined', actor, reason),
    requestResubmission: (tenantId: string, kycId: string, actor: Actor, reason: string | null) =>
      review(tenantId, kycId, 'resubmission_requested', actor, reason),

    /** Identity fields of the user: the latest attempt's status, and its details once approved. */
    identitySource: {
      read: (tenantId: SQLWrapper, userId: SQLWrapper) => repo.latestForUserJson(tenantId, userId),
      fields(read: unknown): Record<string, string | null> {
        const latest = read as { status: string; country: string | null; level: string; provider: string; decidedAt: string | null; walletVerified: boolean; walletAddress: string | null } | null;
        if (!latest) return {};
        const approved = latest.status === 'approved';
        return {
          'kyc.status': latest.status,
          'kyc.country': approved ? latest.country : null,
          'kyc.level': approved ? latest.level : null,
          'kyc.provider': approved ? latest.provider : null,
          'kyc.approvedAt': approved && latest.decidedAt ? new Date(latest.decidedAt).toISOString() : null,
          'kyc.walletAddress': approved && latest.walletVerified ? latest.walletAddress : null,
        };
      },
    },
  };
}

export type KycService = ReturnType<typeof createKycService>;
