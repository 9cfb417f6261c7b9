import { isIP } from 'node:net';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { TemplateWrite } from '../../platform/db/write-together.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import { SECRET_FIELDS } from '../../platform/log/logger.js';
import { isAuditType, type AuditType } from '../../platform/audit/types.js';
import { CommonErrors } from '../../platform/http/errors.js';
import { AuditErrors } from './errors.js';
import type { AuditFilters, AuditRepo } from './repo.js';
import { AUDIT_TYPE_PATTERN, type AuditEventDto } from './schemas.js';
import { ACTOR_TYPES, type ActorType, type AuditEventRow } from './table.js';

/** The audit types: the one closed list (src/platform/audit/types.ts). */
export type AuditEventType = AuditType;

export interface AuditEventInput {
  type: AuditEventType;
  actorType: ActorType;
  actorId?: string | null;
  subjectUserId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  /** The tracked object whose history this event is part of. */
  object?: { type: HistoryObjectType; id: string };
  /** Small and secret-free: fields named like secrets are stored as "[REDACTED]". */
  details?: Record<string, unknown>;
}

/** Objects whose state changes are kept in the audit log as their history. */
export type HistoryObjectType = 'kyc' | 'accreditation' | 'transfer';

const TYPE_RE = new RegExp(AUDIT_TYPE_PATTERN);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SECRET_KEYS = new Set([...SECRET_FIELDS, 'passwordHash', 'secretHash', 'hash', 'otpHash', 'tokenHash'].map((f) => f.toLowerCase()));
const MAX_DETAILS_BYTES = 4096;
/**
 * A tracked object's history step carries the fields it changed, from and to, and the reason:
 * bounded by that object's own schema (a KYC update at most about 9 KiB), so it gets room of
 * its own rather than the 4 KiB of a security event.
 */
const MAX_HISTORY_DETAILS_BYTES = 32 * 1024;
const MAX_USER_AGENT = 512;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 5) return '[TRUNCATED]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEYS.has(k.toLowerCase()) ? '[REDACTED]' : redact(v, depth + 1)]),
    );
  }
  return value;
}

function cleanUserAgent(ua: string | null | undefined): string | null {
  if (!ua) return null;
  const printable = ua.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return printable === '' ? null : printable.slice(0, MAX_USER_AGENT);
}

function toRow(event: AuditEventInput, now: Date): Omit<AuditEventRow, 'tenantId'> {
  if (event.type.length > 64 || !TYPE_RE.test(event.type) || !isAuditType(event.type)) throw AuditErrors.invalidEvent(`type "${String(event.type).slice(0, 64)}" (not in src/platform/audit/types.ts)`);
  if (!ACTOR_TYPES.includes(event.actorType)) throw AuditErrors.invalidEvent('actorType');
  if (event.actorId && event.actorId.length > 128) throw AuditErrors.invalidEvent('actorId');
  if (event.subjectUserId && !UUID_RE.test(event.subjectUserId)) throw AuditErrors.invalidEvent('subjectUserId');
  if (event.object && !UUID_RE.test(event.object.id)) throw AuditErrors.invalidEvent('object');
  const details = redact(event.details ?? {}) as Record<string, unknown>;
  const limit = event.object ? MAX_HISTORY_DETAILS_BYTES : MAX_DETAILS_BYTES;
  if (Buffer.byteLength(JSON.stringify(details)) > limit) throw AuditErrors.invalidEvent(`details over ${limit / 1024} KiB`);
  return {
    id: newId(),
    type: event.type,
    actorType: event.actorType,
    actorId: event.actorId ?? null,
    subjectUserId: event.subjectUserId?.toLowerCase() ?? null,
    objectType: event.object?.type ?? null,
    objectId: event.object?.id.toLowerCase() ?? null,
    // Only a real address is kept (request.ip always is one).
    ip: event.ip && isIP(event.ip) ? event.ip : null,
    userAgent: cleanUserAgent(event.userAgent),
    details,
    createdAt: now,
  };
}

export function toAuditEventDto(row: AuditEventRow): AuditEventDto {
  return {
    id: row.id,
    type: row.type,
    actorType: row.actorType,
    actorId: row.actorId,
    subjectUserId: row.subjectUserId,
    objectType: row.objectType,
    objectId: row.objectId,
    ip: row.ip,
    userAgent: row.userAgent,
    details: row.details,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Rows read per query of an export: the stream holds about one chunk at a time. */
export const EXPORT_CHUNK = 500;

function normalize(filters: AuditFilters): AuditFilters {
  if (filters.from && filters.to && filters.to < filters.from) throw CommonErrors.validation('query.to is before query.from');
  return { userId: filters.userId?.toLowerCase(), type: filters.type, from: filters.from, to: filters.to };
}

export function createAuditService(deps: { repo: AuditRepo; clock: Clock }) {
  const { repo, clock } = deps;
  return {
    /**
     * Appends an event. Pass the transaction of the change it records, so both commit or
     * neither does; pass undefined for an event that must stay even though the request fails
     * (e.g. `login.failed`, recorded outside any transaction that is rolled back).
     */
    async record(tx: DbOrTx | undefined, tenantId: string, event: AuditEventInput): Promise<string> {
      const row = toRow(event, clock.now());
      await repo.insert(tenantId, row, tx);
      return row.id;
    },

    /**
     * The event as a write not yet run, to commit in one statement with the change it records
     * (platform/db/write-together.ts); checked and redacted as record() does.
     */
    statement(tenantId: string, event: AuditEventInput): TemplateWrite {
      return repo.insertStatement(tenantId, toRow(event, clock.now()));
    },

    /** The history of tracked objects (one, or a page of them), oldest first. */
    async history(tenantId: string, objectType: HistoryObjectType, objectIds: string[], tx?: DbOrTx): Promise<AuditEventRow[]> {
      return repo.history(tenantId, objectType, objectIds, tx);
    },

    async list(tenantId: string, filters: AuditFilters, page: PageParams): Promise<Page<AuditEventDto>> {
      const normalized = normalize(filters);
      return paginate(
        () => repo.count(tenantId, normalized),
        () => repo.list(tenantId, normalized, page),
        toAuditEventDto,
      );
    },

    /**
     * Every matching event in the list's order (newest first; from `beforeId` on when given),
     * read in keyset chunks of EXPORT_CHUNK rows: the next query runs only when the consumer
     * asks for the next chunk, so memory stays one chunk however long the log. Checks the
     * filters before the first row (a refusal is still an error answer).
     */
    export(tenantId: string, filters: AuditFilters, beforeId: string | undefined): AsyncGenerator<AuditEventDto[]> {
      const normalized = normalize(filters);
      return (async function* chunks() {
        let cursor = beforeId?.toLowerCase();
        for (;;) {
          const rows = await repo.list(tenantId, normalized, { limit: EXPORT_CHUNK, offset: 0, beforeId: cursor });
          if (rows.length > 0) yield rows.map(toAuditEventDto);
          if (rows.length < EXPORT_CHUNK) return;
          cursor = rows[rows.length - 1]!.id;
        }
      })();
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
