import { and, count, desc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { andTenantIn } from '../../platform/db/only-tenants.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { arrayLiteral } from '../../platform/db/array-literal.js';
import { runClaimWith } from '../../platform/db/claim.js';
import { TEST_EVENT_TYPE } from '../../platform/events/outbox.js';
import { outboxEvents } from '../../platform/events/table.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { eventDeliveries, type DeliveryStatus, type EventDeliveryRow, type EventEndpointRow } from './table.js';

/** A timestamp parameter of hand-written SQL (the same on pg and PGlite). */
const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Serializes dispatch across instances (stream positions become visible in order): each a
 * boolean, whether the transaction holds the lock (waiting for it answers true once it does; it
 * answers nothing of its own, void, so it is compared as text).
 */
const DISPATCH_LOCK = sql`pg_advisory_xact_lock(hashtext('bastion.events.dispatch'))::text = ''`;
const DISPATCH_TRY_LOCK = sql`pg_try_advisory_xact_lock(hashtext('bastion.events.dispatch'))`;

/** The due time of a disabled endpoint's pending rows: never, until it is enabled. */
export const PARKED_UNTIL = new Date('9999-12-31T00:00:00.000Z');

export interface ReplayRange {
  from?: Date;
  to?: Date;
  fromSeq?: number;
  toSeq?: number;
}

/** A leased delivery row with its event (null if the outbox row is gone). */
export interface ClaimedDelivery {
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventSeq: number;
  attempts: number;
  queuedAt: Date;
  leaseToken: string;
  event: { id: string; type: string; payload: Record<string, unknown>; createdAt: Date } | null;
  /** The endpoint as the claim found it (enabled): where to send and what to sign with. */
  endpoint: ClaimedEndpoint;
}

export type ClaimedEndpoint = Pick<EventEndpointRow, 'tenantId' | 'id' | 'url' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>;

/** A claim's leased rows, and the latest due time among them (what they were due at before the lease): null when it leased none. */
export interface Claim {
  rows: ClaimedDelivery[];
  lastDueAt: Date | null;
  /** Asked with the claim (`probeFromSeq`): whether an outbox event from that seq on waits to be dispatched. */
  waiting?: boolean;
}

/** A delivery row with its event's type (null when the outbox row is gone). */
export type DeliveryLogRow = EventDeliveryRow & { eventType: string | null };

/** A leased delivery's columns as dispatch reads them (`d` the delivery, `o` its event, `e` its endpoint); the claim answers the same names. */
const DELIVERY_COLUMNS = sql.raw(`d.tenant_id, d.endpoint_id, d.event_id, d.event_seq, d.attempts, d.queued_at,
      o.type as event_type, o.payload as event_payload, o.created_at as event_created_at,
      e.url as endpoint_url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at`);

/** Dispatch leases the first `limit` deliveries it makes to the dispatching worker, as a claim until `until` under `token` would. */
export interface DispatchLease {
  limit: number;
  until: Date;
  token: string;
}

/** Claimed rows as PostgreSQL sent them (DELIVERY_COLUMNS), in stream order; one endpoint object per endpoint (its secrets are opened once per batch). */
function toClaimed(rows: Array<Record<string, unknown>>, token: string): ClaimedDelivery[] {
  const endpoints = new Map<string, ClaimedEndpoint>();
  const endpointOf = (r: Record<string, unknown>): ClaimedEndpoint => {
    const key = `${String(r.tenant_id)}/${String(r.endpoint_id)}`;
    let endpoint = endpoints.get(key);
    if (!endpoint) {
      endpoint = {
        tenantId: String(r.tenant_id),
        id: String(r.endpoint_id),
        url: String(r.endpoint_url),
        secretSealed: String(r.secret_sealed),
        previousSecretSealed: r.previous_secret_sealed === null || r.previous_secret_sealed === undefined ? null : String(r.previous_secret_sealed),
        previousSecretExpiresAt:
          r.previous_secret_expires_at === null || r.previous_secret_expires_at === undefined ? null : new Date(r.previous_secret_expires_at as string | Date),
      };
      endpoints.set(key, endpoint);
    }
    return endpoint;
  };
  return rows
    .map((r) => ({
      endpoint: endpointOf(r),
      tenantId: String(r.tenant_id),
      endpointId: String(r.endpoint_id),
      eventId: String(r.event_id),
      eventSeq: Number(r.event_seq),
      attempts: Number(r.attempts),
      queuedAt: new Date(r.queued_at as string | Date),
      leaseToken: token,
      event:
        r.event_type === null || r.event_type === undefined
          ? null
          : {
              id: String(r.event_id),
              type: String(r.event_type),
              payload: (typeof r.event_payload === 'string' ? JSON.parse(r.event_payload) : r.event_payload) as Record<string, unknown>,
              createdAt: new Date(r.event_created_at as string | Date),
            },
    }))
    .sort((a, b) => a.eventSeq - b.eventSeq);
}

/**
 * Whether anything waits to be dispatched from `fromSeq` on: in the pending index's order from
 * there, the first entry that qualifies answers (a row, or none). Dispatch asks it before taking
 * its lock (most polls find nothing); the worker asks it with its claim, in the claim's message.
 */
export function dispatchProbe(fromSeq: number, onlyTenants?: readonly string[]): SQL {
  return sql`select seq from outbox_events where delivered_at is null and seq >= ${fromSeq} ${andTenantIn('tenant_id', onlyTenants)} order by seq limit 1`;
}

const tenantFilter = (column: typeof outboxEvents.tenantId | typeof eventDeliveries.tenantId, only?: readonly string[]) =>
  only ? inArray(column, [...only]) : undefined;

/**
 * One statement: pick and lock up to `limit` due deliveries of enabled endpoints (FOR UPDATE
 * SKIP LOCKED), lease them, and read their events and endpoints with them. Run by runClaim
 * (platform/db/claim.ts): the due index is in the pick's order (due time, then stream order).
 * `dueFrom` starts the pick at that due time (the worker's claim floor) rather than at the
 * index's start.
 */
export function claimStatement(now: Date, limit: number, leaseUntil: Date, token: string, onlyTenants?: readonly string[], dueFrom?: Date): SQL {
  const only = andTenantIn('d.tenant_id', onlyTenants);
  const from = dueFrom ? sql`and d.next_attempt_at >= ${at(dueFrom)}` : sql``;
  // The endpoint's columns are read with the pick, so the update reaches each row by its whole
  // key from one relation. Joined to the endpoints again in the update, the planner (statistics
  // behind a backlog) reached the rows by the endpoint's half of the key and filtered the event
  // id: every claim read all of the endpoint's deliveries once per row picked (640,000 rows
  // for 32 picked out of 20,000; 0.3–1 s a claim).
  return sql`
    with due as materialized (
      select d.tenant_id, d.endpoint_id, d.event_id, d.event_seq, d.next_attempt_at as due_at,
        e.url as endpoint_url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at
      from event_deliveries d
      join event_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
      where d.status = 'pending' and d.next_attempt_at <= ${at(now)} ${from} and e.enabled ${only}
      order by d.next_attempt_at, d.event_seq
      limit ${limit}
      for update of d skip locked
    )
    update event_deliveries d
    set attempts = d.attempts + 1, next_attempt_at = ${at(leaseUntil)}, lease_token = ${token}::uuid, last_attempt_at = ${at(now)}
    from due
      left join outbox_events o on o.seq = due.event_seq and o.tenant_id = due.tenant_id
    where d.tenant_id = due.tenant_id and d.endpoint_id = due.endpoint_id and d.event_id = due.event_id
    returning d.tenant_id, d.endpoint_id, d.event_id, d.event_seq, d.attempts, d.queued_at,
      o.type as event_type, o.payload as event_payload, o.created_at as event_created_at,
      due.endpoint_url, due.secret_sealed, due.previous_secret_sealed, due.previous_secret_expires_at, due.due_at`;
}

/**
 * One statement recording a batch's delivered rows, each under its lease token. Each row names
 * the status it must still have ('pending') beside its key. Written as the constant
 * `d.status = 'pending'`, it let PostgreSQL reach the rows through the due index (partial on
 * that status) and hash-join them: a bitmap scan of every pending entry, dead ones included, at
 * every batch (26 ms for 128 rows over a backlog of 40,000, and growing with it). Compared with
 * a column of the list, the due index cannot serve, and each row is found by its primary key
 * (1 ms), whatever the statistics say. The list is six arrays (unnest), not a VALUES row of six
 * parameters per delivery: 768 parameters a batch cost the worker their building and PostgreSQL
 * their parsing (2.8 ms a batch of 128, against 1.1 for an update by one array of keys).
 */
export function markDeliveredStatement(rows: ReadonlyArray<Pick<ClaimedDelivery, 'tenantId' | 'endpointId' | 'eventId' | 'leaseToken'>>, now: Date, statuses: Map<string, number>): SQL {
  const column = <T extends string | number>(of: (r: (typeof rows)[number]) => T) => arrayLiteral(rows.map(of));
  return sql`
    update event_deliveries d set status = 'delivered', delivered_at = ${at(now)}, lease_token = null, last_status = k.status, last_error = null
    from unnest(${column((r) => r.tenantId)}::uuid[], ${column((r) => r.endpointId)}::uuid[], ${column((r) => r.eventId)}::uuid[],
      ${column((r) => statuses.get(r.eventId + r.endpointId) ?? 200)}::int[], ${column((r) => r.leaseToken)}::uuid[], ${column(() => 'pending')}::text[])
      as k (tenant_id, endpoint_id, event_id, status, token, from_status)
    where d.tenant_id = k.tenant_id and d.endpoint_id = k.endpoint_id and d.event_id = k.event_id
      and d.status = k.from_status and d.lease_token = k.token`;
}

/**
 * The delivery worker's queries. Dispatch, claim and prune run across tenants by nature (one
 * queue for the service; `onlyTenants` narrows them for test harnesses sharing a database);
 * every other query names the tenant and the row.
 */
export function createDeliveryRepo(db: Db) {
  const keyOf = (row: Pick<EventDeliveryRow, 'tenantId' | 'endpointId' | 'eventId'>) =>
    and(eq(eventDeliveries.tenantId, row.tenantId), eq(eventDeliveries.endpointId, row.endpointId), eq(eventDeliveries.eventId, row.eventId));
  const leased = (row: Pick<EventDeliveryRow, 'tenantId' | 'endpointId' | 'eventId'>, token: string) =>
    and(keyOf(row), eq(eventDeliveries.status, 'pending'), eq(eventDeliveries.leaseToken, token));

  return {
    /**
     * Fans undispatched outbox events out into one pending delivery per matching enabled
     * endpoint, marks them dispatched and gives them their stream positions, in seq order.
     * One dispatcher at a time (advisory lock). Looks only at events from `fromSeq` on (see
     * the worker's dispatch floor); answers how many it dispatched and the last one's seq.
     * `probe` (default on) first asks whether anything waits, without the lock (most polls find
     * nothing); a caller that just dispatched a full batch knows more waits. `wait` (default on)
     * waits for the lock; off, a dispatcher finding another at work leaves the work to it.
     */
    async dispatch(
      now: Date,
      limit: number,
      onlyTenants?: readonly string[],
      options: { fromSeq?: number; probe?: boolean; wait?: boolean; lease?: DispatchLease } = {},
    ): Promise<{ dispatched: number; lastSeq: number | null; leased: ClaimedDelivery[] }> {
      const none = { dispatched: 0, lastSeq: null, leased: [] };
      if (onlyTenants && onlyTenants.length === 0) return none;
      const from = sql`${outboxEvents.seq} >= ${options.fromSeq ?? 0}`;
      if (options.probe ?? true) {
        const result = (await db.execute(dispatchProbe(options.fromSeq ?? 0, onlyTenants))) as unknown as { rows: unknown[] };
        if (result.rows.length === 0) return none;
      }
      // Leased: the first `lease.limit` new deliveries in stream order, as a claim would lease them.
      const leaseLimit = options.lease?.limit ?? 0;
      const leased = sql`d.n <= ${leaseLimit}`;
      const token = options.lease ? sql`${options.lease.token}::uuid` : sql`null::uuid`;
      const leaseUntil = options.lease ? at(options.lease.until) : at(now);
      // One statement, one round trip: take the lock (its first step; held until the statement's
      // implicit transaction commits), pick the oldest undispatched events, fan each out into a
      // delivery row per matching endpoint (the first ones leased), give the events stream
      // positions in seq order, and read the leased rows' events and endpoints. Without the lock
      // (tried, and another dispatcher holds it) the pick reads nothing.
      // The statement's snapshot is taken before the lock: an event another dispatcher marked
      // and committed in between still looks undispatched to it, but FOR UPDATE finds the row
      // changed and checks the newest version again (delivered_at is set: skipped), so no event
      // is dispatched twice; and the positions it takes, after the other's commit, are larger.
      // As a transaction (BEGIN, the lock, the statement, COMMIT) a dispatch took four round trips.
      const result = await db.execute(sql`
        with lock as materialized (select ${options.wait ?? true ? DISPATCH_LOCK : DISPATCH_TRY_LOCK} as held),
        picked as (
          select seq from outbox_events
          where (select held from lock) and delivered_at is null and ${from} and ${tenantFilter(outboxEvents.tenantId, onlyTenants) ?? sql`true`}
          order by seq
          limit ${limit}
          for update skip locked
        ),
        due as (
          select o.tenant_id, e.id as endpoint_id, o.id as event_id, o.seq as event_seq, row_number() over (order by o.seq, e.id) as n
          from picked p
          join outbox_events o on o.seq = p.seq
          join event_endpoints e on e.tenant_id = o.tenant_id and e.enabled
            and (jsonb_array_length(e.types) = 0 or e.types @> to_jsonb(o.type))
        ),
        fanned as (
          insert into event_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at, lease_token, last_attempt_at)
          select d.tenant_id, d.endpoint_id, d.event_id, d.event_seq, 'pending',
            case when ${leased} then 1 else 0 end,
            case when ${leased} then ${leaseUntil} else ${at(now)} end,
            ${at(now)},
            case when ${leased} then ${token} end,
            case when ${leased} then ${at(now)} end
          from due d
          on conflict do nothing
          returning tenant_id, endpoint_id, event_id, event_seq, attempts, queued_at, lease_token
        ),
        numbered as (
          select s.seq, nextval('outbox_events_position_seq') as pos
          from (select seq from picked order by seq) s
        ),
        marked as (
          update outbox_events o set delivered_at = ${at(now)}, position = n.pos
          from numbered n
          where o.seq = n.seq
          returning o.seq
        ),
        counted as (select count(*)::int as dispatched, max(seq)::bigint as last_seq from marked)
        select c.dispatched, c.last_seq, ${DELIVERY_COLUMNS}
        from counted c
        left join (fanned d
          join outbox_events o on o.seq = d.event_seq and o.tenant_id = d.tenant_id
          join event_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
        ) on d.lease_token is not null`);
      const rows = (result as unknown as { rows: Array<Record<string, unknown> & { dispatched: number | string; last_seq: number | string | null }> }).rows;
      const [first] = rows;
      const lastSeq = first?.last_seq === null || first?.last_seq === undefined ? null : Number(first.last_seq);
      const leasedRows = options.lease ? toClaimed(rows.filter((r) => r.event_id !== null && r.event_id !== undefined), options.lease.token) : [];
      return { dispatched: Number(first?.dispatched ?? 0), lastSeq, leased: leasedRows };
    },

    /**
     * Claims up to `limit` due deliveries of enabled endpoints: locks them FOR UPDATE SKIP
     * LOCKED (rows another instance holds are skipped, never waited for), counts the attempt,
     * and leases them until `leaseUntil` under `token`. A worker that dies mid-delivery leaves
     * its rows to come back when the lease ends.
     */
    async claimDue(
      now: Date,
      limit: number,
      leaseUntil: Date,
      token: string,
      onlyTenants?: readonly string[],
      dueFrom?: Date,
      options: { probeFromSeq?: number } = {},
    ): Promise<Claim> {
      if (onlyTenants && onlyTenants.length === 0) return { rows: [], lastDueAt: null, ...(options.probeFromSeq === undefined ? {} : { waiting: false }) };
      const probe = options.probeFromSeq === undefined ? undefined : dispatchProbe(options.probeFromSeq, onlyTenants);
      const { rows: raw, read } = await runClaimWith(db, claimStatement(now, limit, leaseUntil, token, onlyTenants, dueFrom), probe, { inIndexOrder: true });
      let lastDueAt: Date | null = null;
      for (const r of raw) {
        const dueAt = new Date(r.due_at as string | Date);
        if (!lastDueAt || dueAt > lastDueAt) lastDueAt = dueAt;
      }
      return { rows: toClaimed(raw, token), lastDueAt, ...(probe ? { waiting: read.length > 0 } : {}) };
    },

    /**
     * The outcomes below are recorded only under the lease token (one per claimed batch):
     * rows whose lease passed to another worker are left as they are. Returns how many were
     * recorded: delivered rows of a batch are written in one statement.
     */
    async markDelivered(rows: ClaimedDelivery[], now: Date, statuses: Map<string, number>): Promise<number> {
      if (rows.length === 0) return 0;
      const result = await db.execute(markDeliveredStatement(rows, now, statuses));
      return Number((result as { rowCount?: number | null }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
    },

    async markRetry(row: ClaimedDelivery, nextAttemptAt: Date, status: number | null, error: string): Promise<boolean> {
      const rows = await db
        .update(eventDeliveries)
        .set({ nextAttemptAt, leaseToken: null, lastStatus: status, lastError: error })
        .where(leased(row, row.leaseToken))
        .returning({ id: eventDeliveries.eventId });
      return rows.length > 0;
    },

    /** Gives up on a row; in the caller's transaction with the endpoint's disabling. */
    async markFailed(tx: DbOrTx, row: ClaimedDelivery, status: number | null, error: string): Promise<boolean> {
      const rows = await tx
        .update(eventDeliveries)
        .set({ status: 'failed', leaseToken: null, lastStatus: status, lastError: error })
        .where(leased(row, row.leaseToken))
        .returning({ id: eventDeliveries.eventId });
      return rows.length > 0;
    },

    /** Deliveries not made yet (pending, due or waiting for a retry), and outbox events not fanned out yet. */
    async backlog(): Promise<{ deliveries: number; undispatched: number }> {
      const [deliveries] = await db.select({ n: sql<number>`count(*)::int` }).from(eventDeliveries).where(eq(eventDeliveries.status, 'pending'));
      const [undispatched] = await db.select({ n: sql<number>`count(*)::int` }).from(outboxEvents).where(sql`${outboxEvents.deliveredAt} is null`);
      return { deliveries: deliveries?.n ?? 0, undispatched: undispatched?.n ?? 0 };
    },
    /** Deletes up to `limit` rows delivered before `before`; returns how many. */
    async pruneDelivered(before: Date, limit: number, onlyTenants?: readonly string[]): Promise<number> {
      if (onlyTenants && onlyTenants.length === 0) return 0;
      const only = andTenantIn('tenant_id', onlyTenants);
      const result = await db.execute(sql`
        delete from event_deliveries where (tenant_id, endpoint_id, event_id) in (
          select tenant_id, endpoint_id, event_id from event_deliveries
          where status = 'delivered' and delivered_at < ${at(before)} ${only}
          limit ${limit})`);
      return Number((result as { rowCount?: number | null; affectedRows?: number }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
    },

    /**
     * Queues the tenant's events in the range (matching the endpoint's filter) for delivery to
     * the endpoint again, due now, with a fresh retry window. Existing rows are reset (their
     * webhook-id is the event id, so it stays the same); pruned ones are inserted again.
     */
    async replay(tx: DbOrTx, tenantId: string, endpoint: EventEndpointRow, range: ReplayRange, now: Date): Promise<number> {
      // A test event is for the endpoint it was sent to: never replayed (to that one or another).
      const conditions: SQL[] = [sql`o.tenant_id = ${tenantId}::uuid`, sql`o.type <> ${TEST_EVENT_TYPE}`];
      if (range.from) conditions.push(sql`o.created_at >= ${at(range.from)}`);
      if (range.to) conditions.push(sql`o.created_at <= ${at(range.to)}`);
      if (range.fromSeq !== undefined) conditions.push(sql`o.position >= ${range.fromSeq}`);
      if (range.toSeq !== undefined) conditions.push(sql`o.position <= ${range.toSeq}`);
      if (endpoint.types.length > 0) conditions.push(sql`o.type in (${sql.join(endpoint.types.map((t) => sql`${t}`), sql`, `)})`);
      const result = await tx.execute(sql`
        insert into event_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at)
        select o.tenant_id, ${endpoint.id}::uuid, o.id, o.seq, 'pending', 0, ${at(endpoint.enabled ? now : PARKED_UNTIL)}, ${at(now)}
        from outbox_events o
        where ${sql.join(conditions, sql` and `)}
        on conflict (tenant_id, endpoint_id, event_id) do update set
          status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at, queued_at = excluded.queued_at,
          lease_token = null, last_error = null, last_status = null, delivered_at = null`);
      return Number((result as { rowCount?: number | null }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
    },

    /**
     * A disabled endpoint's pending rows are parked (due at PARKED_UNTIL), so the claim query
     * never walks over them; enabling the endpoint makes them due again.
     */
    async park(tx: DbOrTx, tenantId: string, endpointId: string): Promise<void> {
      await tx
        .update(eventDeliveries)
        .set({ nextAttemptAt: PARKED_UNTIL, leaseToken: null })
        .where(and(eq(eventDeliveries.tenantId, tenantId), eq(eventDeliveries.endpointId, endpointId), eq(eventDeliveries.status, 'pending')));
    },

    async unpark(tx: DbOrTx, tenantId: string, endpointId: string, now: Date): Promise<void> {
      await tx
        .update(eventDeliveries)
        .set({ nextAttemptAt: now })
        .where(
          and(
            eq(eventDeliveries.tenantId, tenantId),
            eq(eventDeliveries.endpointId, endpointId),
            eq(eventDeliveries.status, 'pending'),
            eq(eventDeliveries.nextAttemptAt, PARKED_UNTIL),
          ),
        );
    },

    /** A delivery row (tests and operators' views); `lock` takes it FOR UPDATE in `tx`. */
    async find(tenantId: string, endpointId: string, eventId: string, tx: DbOrTx = db, lock = false): Promise<EventDeliveryRow | undefined> {
      const query = tx.select().from(eventDeliveries).where(keyOf({ tenantId, endpointId, eventId })).limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    /** The endpoint's deliveries, newest event first (event ids are time-ordered); `beforeId` pages back along the primary key. */
    async listForEndpoint(tenantId: string, endpointId: string, status: DeliveryStatus | undefined, page: PageParams, tx: DbOrTx = db): Promise<DeliveryLogRow[]> {
      const conditions: SQL[] = [eq(eventDeliveries.tenantId, tenantId), eq(eventDeliveries.endpointId, endpointId)];
      if (status) conditions.push(eq(eventDeliveries.status, status));
      if (page.beforeId) conditions.push(lt(eventDeliveries.eventId, page.beforeId));
      const rows = await tx
        .select({ delivery: eventDeliveries, eventType: outboxEvents.type })
        .from(eventDeliveries)
        .leftJoin(outboxEvents, and(eq(outboxEvents.seq, eventDeliveries.eventSeq), eq(outboxEvents.tenantId, eventDeliveries.tenantId)))
        .where(and(...conditions))
        .orderBy(desc(eventDeliveries.eventId))
        .limit(page.limit)
        .offset(page.offset);
      return rows.map((r) => ({ ...r.delivery, eventType: r.eventType }));
    },

    /** The type of a delivery's event; null when the outbox row is gone. */
    async eventTypeOf(tx: DbOrTx, eventSeq: number, tenantId: string): Promise<string | null> {
      const [row] = await tx
        .select({ type: outboxEvents.type })
        .from(outboxEvents)
        .where(and(eq(outboxEvents.seq, eventSeq), eq(outboxEvents.tenantId, tenantId)))
        .limit(1);
      return row?.type ?? null;
    },

    async countForEndpoint(tenantId: string, endpointId: string, status: DeliveryStatus | undefined, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(eventDeliveries)
        .where(and(eq(eventDeliveries.tenantId, tenantId), eq(eventDeliveries.endpointId, endpointId), status ? eq(eventDeliveries.status, status) : undefined));
      return Number(row?.n ?? 0);
    },

    /** The one delivery of a test event: pending, due now. */
    async queueOne(tx: DbOrTx, tenantId: string, endpointId: string, event: { id: string; seq: number }, now: Date): Promise<EventDeliveryRow> {
      const [row] = await tx
        .insert(eventDeliveries)
        .values({ tenantId, endpointId, eventId: event.id, eventSeq: event.seq, status: 'pending', attempts: 0, nextAttemptAt: now, queuedAt: now })
        .returning();
      return row!;
    },

    /**
     * Makes a pending or failed row due now with a fresh retry window (queued now); its
     * attempts keep counting. The caller holds the row (find with lock) and checked it is not
     * delivered nor in flight.
     */
    async retryNow(tx: DbOrTx, tenantId: string, endpointId: string, eventId: string, now: Date): Promise<EventDeliveryRow> {
      const [row] = await tx
        .update(eventDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, queuedAt: now, leaseToken: null })
        .where(keyOf({ tenantId, endpointId, eventId }))
        .returning();
      return row!;
    },
  };
}

export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;
