import { auditActor } from '../../platform/audit/actor.js';
import type { Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { checkOutboundUrl, OutboundRefusedError, type OutboundPolicy } from '../../platform/http/outbound.js';
import { paginate, type Page, type PageParams } from '../../platform/http/pagination.js';
import type { AuditService } from '../audit/service.js';
import { appendTestEvent, TEST_EVENT_TYPE } from '../../platform/events/outbox.js';
import { PARKED_UNTIL, type DeliveryLogRow, type DeliveryRepo, type ReplayRange } from './delivery-repo.js';
import { EventsErrors, MAX_ENDPOINTS_PER_TENANT } from './errors.js';
import type { EventsRepo } from './repo.js';
import type { CreateEventEndpointInput, DeliveryListInput, EventDeliveryDto, EventEndpointDto, EventPageDto, ReplayInput, UpdateEventEndpointInput } from './schemas.js';
import { newSigningSecret, secretContext } from './signing.js';
import type { EventEndpointRow } from './table.js';

/** After a rotation the previous secret keeps signing this long, so receivers can roll over. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function toEndpointDto(row: EventEndpointRow): EventEndpointDto {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    types: row.types,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toDeliveryDto(row: DeliveryLogRow): EventDeliveryDto {
  const parked = row.nextAttemptAt.getTime() >= PARKED_UNTIL.getTime();
  return {
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatus,
    lastError: row.lastError,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' && !parked ? row.nextAttemptAt.toISOString() : null,
    queuedAt: row.queuedAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

export interface EventsServiceDeps {
  repo: EventsRepo;
  deliveries: DeliveryRepo;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  audit: AuditService;
  /** Read at call time (tests flip EVENTS_ALLOW_PRIVATE_URLS). */
  policy: () => OutboundPolicy;
}

export function createEventsService(deps: EventsServiceDeps) {
  const { repo, deliveries, tx, clock, secrets, audit } = deps;

  async function checkUrl(url: string): Promise<string> {
    try {
      return (await checkOutboundUrl(url, deps.policy())).toString();
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw EventsErrors.urlRefused(error);
      throw error;
    }
  }

  async function mustFind(tenantId: string, id: string, db?: DbOrTx, lock = false): Promise<EventEndpointRow> {
    const row = await repo.findEndpoint(tenantId, id, db, lock);
    if (!row) throw EventsErrors.endpointNotFound();
    return row;
  }

  return {
    async create(tenantId: string, input: CreateEventEndpointInput, actor: Actor): Promise<EventEndpointDto & { secret: string }> {
      const url = await checkUrl(input.url);
      const secret = newSigningSecret();
      const id = newId();
      const now = clock.now();
      const row = await tx(async (db) => {
        if ((await repo.countEndpoints(tenantId, db)) >= MAX_ENDPOINTS_PER_TENANT) throw EventsErrors.endpointLimit();
        const created = await repo.insertEndpoint(
          tenantId,
          {
            id,
            url,
            description: input.description ?? null,
            types: input.types ?? [],
            secretSealed: secrets.encrypt(secret, secretContext(tenantId, id)),
            previousSecretSealed: null,
            previousSecretExpiresAt: null,
            enabled: input.enabled ?? true,
            disabledReason: input.enabled === false ? 'created disabled' : null,
            disabledAt: input.enabled === false ? now : null,
            createdAt: now,
            updatedAt: now,
          },
          db,
        );
        await audit.record(db, tenantId, { type: 'event_endpoint.created', ...auditActor(actor), details: { endpointId: id, url, types: created.types } });
        return created;
      });
      return { ...toEndpointDto(row), secret };
    },

    async list(tenantId: string, page: PageParams): Promise<Page<EventEndpointDto>> {
      return paginate(() => repo.countEndpoints(tenantId), () => repo.listEndpoints(tenantId, page), toEndpointDto);
    },

    async get(tenantId: string, id: string): Promise<EventEndpointDto> {
      return toEndpointDto(await mustFind(tenantId, id));
    },

    async update(tenantId: string, id: string, input: UpdateEventEndpointInput, actor: Actor): Promise<EventEndpointDto> {
      if (Object.keys(input).length === 0) throw EventsErrors.emptyUpdate();
      await mustFind(tenantId, id);
      const url = input.url === undefined ? undefined : await checkUrl(input.url);
      const now = clock.now();
      return tx(async (db) => {
        const current = await mustFind(tenantId, id, db, true);
        const changes: Partial<EventEndpointRow> = { updatedAt: now };
        if (url !== undefined) changes.url = url;
        if (input.types !== undefined) changes.types = input.types;
        if (input.description !== undefined) changes.description = input.description;
        if (input.enabled === true && !current.enabled) Object.assign(changes, { enabled: true, disabledReason: null, disabledAt: null });
        if (input.enabled === false && current.enabled) {
          Object.assign(changes, { enabled: false, disabledReason: input.disabledReason ?? 'disabled by the tenant', disabledAt: now });
        }
        const row = (await repo.updateEndpoint(tenantId, id, changes, db))!;
        if (changes.enabled === true) await deliveries.unpark(db, tenantId, id, now);
        if (changes.enabled === false) await deliveries.park(db, tenantId, id);
        const { disabledReason, ...rest } = input;
        await audit.record(db, tenantId, {
          type: 'event_endpoint.updated',
          ...auditActor(actor),
          details: { endpointId: id, changed: Object.keys(rest), ...(changes.enabled === false ? { disabledReason: changes.disabledReason } : {}) },
        });
        void disabledReason;
        return toEndpointDto(row);
      });
    },

    async remove(tenantId: string, id: string, actor: Actor): Promise<void> {
      await tx(async (db) => {
        if (!(await repo.deleteEndpoint(tenantId, id, db))) throw EventsErrors.endpointNotFound();
        await audit.record(db, tenantId, { type: 'event_endpoint.deleted', ...auditActor(actor), details: { endpointId: id } });
      });
    },

    /** A new secret; the previous one keeps signing (beside it) for ROTATION_OVERLAP_MS. */
    async rotateSecret(tenantId: string, id: string, actor: Actor): Promise<{ secret: string; previousSecretExpiresAt: string }> {
      const secret = newSigningSecret();
      const now = clock.now();
      const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      await tx(async (db) => {
        const current = await mustFind(tenantId, id, db, true);
        await repo.updateEndpoint(
          tenantId,
          id,
          {
            secretSealed: secrets.encrypt(secret, secretContext(tenantId, id)),
            previousSecretSealed: current.secretSealed,
            previousSecretExpiresAt: expires,
            updatedAt: now,
          },
          db,
        );
        await audit.record(db, tenantId, { type: 'event_endpoint.secret_rotated', ...auditActor(actor), details: { endpointId: id } });
      });
      return { secret, previousSecretExpiresAt: expires.toISOString() };
    },

    /**
     * Queues a range of the tenant's events (by creation time or by seq; matching the
     * endpoint's filter) for delivery again, under their original webhook-ids. A disabled
     * endpoint keeps them queued until it is enabled.
     */
    async replay(tenantId: string, id: string, input: ReplayInput, actor: Actor): Promise<{ queued: number }> {
      const byTime = input.from !== undefined || input.to !== undefined;
      const bySeq = input.fromSeq !== undefined || input.toSeq !== undefined;
      if (byTime === bySeq) throw EventsErrors.replayRange('Give a time range (from, optional to) or a seq range (fromSeq, optional toSeq), not both');
      const range: ReplayRange = byTime
        ? { from: input.from ? new Date(input.from) : undefined, to: input.to ? new Date(input.to) : undefined }
        : { fromSeq: input.fromSeq, toSeq: input.toSeq };
      if (byTime && !range.from) throw EventsErrors.replayRange('body.from is required with a time range');
      if (bySeq && range.fromSeq === undefined) throw EventsErrors.replayRange('body.fromSeq is required with a seq range');
      if ((range.from && range.to && range.to < range.from) || (range.toSeq !== undefined && range.toSeq < range.fromSeq!)) {
        throw EventsErrors.replayRange('The end of the range is before its start');
      }
      const now = clock.now();
      return tx(async (db) => {
        const endpoint = await mustFind(tenantId, id, db, true);
        const queued = await deliveries.replay(db, tenantId, endpoint, range, now);
        await audit.record(db, tenantId, {
          type: 'event_endpoint.replayed',
          ...auditActor(actor),
          details: { endpointId: id, queued, from: input.from, to: input.to, fromSeq: input.fromSeq, toSeq: input.toSeq },
        });
        return { queued };
      });
    },

    /** The endpoint's delivery log, newest event first; another tenant's endpoint is 404. */
    async deliveries(tenantId: string, id: string, query: DeliveryListInput): Promise<Page<EventDeliveryDto>> {
      await mustFind(tenantId, id);
      const page: PageParams = { limit: query.limit, offset: query.offset, beforeId: query.beforeId?.toLowerCase() };
      return paginate(
        () => deliveries.countForEndpoint(tenantId, id, query.status),
        () => deliveries.listForEndpoint(tenantId, id, query.status, page),
        toDeliveryDto,
      );
    },

    /**
     * Queues a test event (endpoint.test) for this endpoint only: signed and sent by the worker
     * like every event, tried once (a failure never disables the endpoint), shown in the
     * delivery log, never in the pull stream. A disabled endpoint is 409 (nothing would send it).
     */
    async sendTest(tenantId: string, id: string, actor: Actor): Promise<EventDeliveryDto> {
      const now = clock.now();
      return tx(async (db) => {
        const endpoint = await mustFind(tenantId, id, db, true);
        if (!endpoint.enabled) throw EventsErrors.endpointDisabled();
        const event = await appendTestEvent(db, tenantId, { endpointId: id, message: 'A test event sent on request', actor: { type: actor.type, id: actor.id } }, now);
        const row = await deliveries.queueOne(db, tenantId, id, event, now);
        await audit.record(db, tenantId, { type: 'event_endpoint.tested', ...auditActor(actor), details: { endpointId: id, eventId: event.id } });
        return toDeliveryDto({ ...row, eventType: TEST_EVENT_TYPE });
      });
    },

    /**
     * Makes one pending or failed delivery due now, with a fresh retry window (202: the worker
     * sends it at its next poll). Delivered is 409 (replay sends it again), so is an attempt in
     * flight and a disabled endpoint; another endpoint's or tenant's delivery is 404.
     */
    async retryDelivery(tenantId: string, id: string, eventId: string, actor: Actor): Promise<EventDeliveryDto> {
      const now = clock.now();
      return tx(async (db) => {
        const endpoint = await mustFind(tenantId, id, db, true);
        const current = await deliveries.find(tenantId, id, eventId.toLowerCase(), db, true);
        if (!current) throw EventsErrors.deliveryNotFound();
        if (current.status === 'delivered') throw EventsErrors.deliveryDelivered();
        if (!endpoint.enabled) throw EventsErrors.endpointDisabled();
        if (current.status === 'pending' && current.leaseToken !== null && current.nextAttemptAt > now) throw EventsErrors.deliveryInFlight();
        const row = await deliveries.retryNow(db, tenantId, id, current.eventId, now);
        await audit.record(db, tenantId, {
          type: 'event_endpoint.delivery_retried',
          ...auditActor(actor),
          details: { endpointId: id, eventId: current.eventId, was: current.status, attempts: current.attempts },
        });
        return toDeliveryDto({ ...row, eventType: await deliveries.eventTypeOf(db, row.eventSeq, tenantId) });
      });
    },

    /** The endpoint is given up on after persistent failure: disabled, with an audit row, in the caller's transaction. */
    async disableExhausted(db: DbOrTx, tenantId: string, endpointId: string, reason: string): Promise<void> {
      const now = clock.now();
      const row = await repo.updateEndpoint(tenantId, endpointId, { enabled: false, disabledReason: reason, disabledAt: now, updatedAt: now }, db);
      if (!row) return;
      await deliveries.park(db, tenantId, endpointId);
      await audit.record(db, tenantId, { type: 'event_endpoint.disabled', actorType: 'system', actorId: null, details: { endpointId, reason } });
    },

    /** The pull stream: dispatched events after the cursor (a seq, or an event id), oldest first. */
    async pull(tenantId: string, after: string | undefined, limit: number): Promise<EventPageDto> {
      let position = 0;
      if (after !== undefined && after.includes('-')) {
        const found = await repo.positionOf(tenantId, after.toLowerCase());
        if (!found || found.position === null) throw EventsErrors.cursorUnknown();
        position = found.position;
      } else if (after !== undefined) {
        position = Number(after);
      }
      const rows = await repo.listEventsAfter(tenantId, position, limit);
      const last = rows.at(-1)?.position ?? position;
      return {
        data: rows.map((r) => ({ id: r.id, seq: r.position!, type: r.type, timestamp: r.createdAt.toISOString(), data: r.payload })),
        next: String(last),
        hasMore: rows.length === limit,
      };
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
