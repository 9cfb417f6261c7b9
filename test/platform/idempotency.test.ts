import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/http/errors.js';
import { canonicalJson, parseIdempotencyKey, requestHash } from '../../src/platform/idempotency/key.js';
import { beforeEffects } from '../../src/platform/idempotency/before-effects.js';
import { createIdempotencyStore, type IdempotencyRequest, type IdempotencyStore, type IdempotentAnswer } from '../../src/platform/idempotency/store.js';
import { idempotencyKeys } from '../../src/platform/idempotency/table.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';

const HOUR = 60 * 60 * 1000;

describe('idempotency keys and request fingerprints', () => {
  it('accepts UUIDs, tokens and quoted header values; refuses the rest with 400 IDEMPOTENCY_KEY_INVALID', () => {
    const uuid = randomUUID();
    expect(parseIdempotencyKey(uuid)).toBe(uuid);
    expect(parseIdempotencyKey(`"${uuid}"`)).toBe(uuid);
    expect(parseIdempotencyKey('order-42:retry_1.a~b+c/d=')).toBe('order-42:retry_1.a~b+c/d=');
    expect(parseIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', '""', 'k'.repeat(256), 'has space', 'new\nline', 'naïve', '<script>', 42, null, ['a']]) {
      expect(() => parseIdempotencyKey(bad)).toThrow(expect.objectContaining({ statusCode: 400, code: 'IDEMPOTENCY_KEY_INVALID' }));
    }
  });

  it('hashes the canonical JSON: member order does not matter, values do', () => {
    expect(canonicalJson({ b: [1, { d: 'x', c: null }], a: 1.5e3, u: undefined })).toBe('{"a":1500,"b":[1,{"c":null,"d":"x"}]}');
    expect(requestHash({ a: 1, b: { c: 'é', d: [1, 2] } })).toBe(requestHash(JSON.parse('{"b":{"d":[1,2],"c":"\\u00e9"},"a":1.0}')));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: '1' }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
    expect(requestHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a request nested past 64 levels is a 400, not a stack overflow', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => requestHash({ body: deep })).toThrow(expect.objectContaining({ statusCode: 400, code: 'REQUEST_TOO_DEEP' }));
    let ok: unknown = 'x';
    for (let i = 0; i < 60; i++) ok = { a: ok };
    expect(requestHash({ body: ok })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('idempotency store', () => {
  let h: Harness;
  let store: IdempotencyStore;
  let tenant: TestTenant;
  /** Tenants of this file: the prune moves a manual clock a day ahead and must not touch other suites' keys. */
  const mine: string[] = [];
  const newTenant = async (): Promise<TestTenant> => {
    const t = await h.newTenant();
    mine.push(t.tenantId);
    return t;
  };
  beforeAll(async () => {
    h = await createHarness();
    tenant = h.tenant;
    mine.push(tenant.tenantId);
    store = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 3_000, tenantIds: () => mine });
  });
  afterAll(async () => h.close());

  const request = (body: unknown = { amount: '10' }, over: Partial<IdempotencyRequest> = {}): IdempotencyRequest => ({
    scope: 'POST /test/transfers',
    caller: 'service',
    key: randomUUID(),
    requestHash: requestHash(body),
    ...over,
  });
  const counter = () => {
    const calls = { n: 0 };
    const work = async () => {
      calls.n++;
      return { statusCode: 201, body: { id: randomUUID(), at: new Date(h.clock.now()), n: calls.n } };
    };
    return { calls, work };
  };

  it('runs the first request and replays its answer exactly for a repeat', async () => {
    const { calls, work } = counter();
    const r = request();
    const first = await store.idempotent(tenant.tenantId, r, work);
    const again = await store.idempotent(tenant.tenantId, r, work);
    expect(calls.n).toBe(1);
    expect(first).toMatchObject({ statusCode: 201, replayed: false });
    expect(again).toEqual({ ...first, replayed: true });
    expect(typeof (first.body as { at: unknown }).at).toBe('string'); // the first caller sees the JSON form too
  });

  it('the same key with another request is 409 IDEMPOTENCY_KEY_REUSED and runs nothing', async () => {
    const { calls, work } = counter();
    const r = request({ amount: '10' });
    await store.idempotent(tenant.tenantId, r, work);
    const other = { ...r, requestHash: requestHash({ amount: '11' }) };
    await expect(store.idempotent(tenant.tenantId, other, work)).rejects.toMatchObject({ statusCode: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(calls.n).toBe(1);
  });

  it('a key is separate per tenant, scope and caller', async () => {
    const { calls, work } = counter();
    const r = request();
    const other = await newTenant();
    await store.idempotent(tenant.tenantId, r, work);
    await store.idempotent(other.tenantId, r, work);
    await store.idempotent(tenant.tenantId, { ...r, scope: 'POST /test/other' }, work);
    await store.idempotent(tenant.tenantId, { ...r, caller: 'user:1' }, work);
    expect(calls.n).toBe(4);
    expect((await store.idempotent(other.tenantId, r, work)).replayed).toBe(true);
  });

  it('failed work (a thrown error, or a 5xx, 408 or 429 answer) gives the key back; a retry runs', async () => {
    const r = request();
    let runs = 0;
    await expect(
      store.idempotent(tenant.tenantId, r, async () => {
        runs++;
        throw new Error('provider down');
      }),
    ).rejects.toThrow('provider down');
    await expect(
      store.idempotent(tenant.tenantId, r, async () => {
        runs++;
        throw new AppError(503, 'CUSTODY_PROVIDER_UNAVAILABLE', 'down');
      }),
    ).rejects.toMatchObject({ statusCode: 503 });
    await expect(
      store.idempotent(tenant.tenantId, r, async () => {
        runs++;
        throw new AppError(429, 'RATE_LIMITED', 'slow down');
      }),
    ).rejects.toMatchObject({ statusCode: 429 });
    const failed = await store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 502, body: { runs: ++runs } }));
    expect(failed).toEqual({ statusCode: 502, body: { runs: 4 }, replayed: false });
    const ok = await store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 201, body: { runs: ++runs } }));
    expect(ok).toEqual({ statusCode: 201, body: { runs: 5 }, replayed: false });
    expect(await store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 201, body: { runs: ++runs } }))).toEqual({ ...ok, replayed: true });
  });

  it('a 4xx (thrown AppError or answered) is final: stored and replayed in the error shape', async () => {
    const r = request();
    let runs = 0;
    const work = async () => {
      runs++;
      throw new AppError(409, 'XRPL_TRANSACTION_REFUSED', 'Not enough funds');
    };
    const expected = { statusCode: 409, body: { statusCode: 409, error: 'Conflict', message: 'Not enough funds', code: 'XRPL_TRANSACTION_REFUSED' } };
    expect(await store.idempotent(tenant.tenantId, r, work)).toEqual({ ...expected, replayed: false });
    expect(await store.idempotent(tenant.tenantId, r, work)).toEqual({ ...expected, replayed: true });
    expect(runs).toBe(1);
  });

  it('a 4xx raised before the work changed anything (beforeEffects) gives the key back: the corrected request runs under it', async () => {
    const r = request();
    const refused = () =>
      beforeEffects<IdempotentAnswer>(() => {
        throw new AppError(400, 'ENUM_VALUE_UNKNOWN', 'body.purpose must be one of: PAYMENT');
      });
    await expect(store.idempotent(tenant.tenantId, r, refused)).rejects.toMatchObject({ statusCode: 400, code: 'ENUM_VALUE_UNKNOWN' });
    // Another body under the same key is not 409 IDEMPOTENCY_KEY_REUSED: the key was never used.
    const corrected = { ...r, requestHash: 'b'.repeat(64) };
    const ok = await store.idempotent(tenant.tenantId, corrected, async () => ({ statusCode: 201, body: { sent: true } }));
    expect(ok).toEqual({ statusCode: 201, body: { sent: true }, replayed: false });
    await expect(store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 201, body: {} }))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('a repeat while the first runs waits for its answer, or answers 409 IDEMPOTENCY_IN_PROGRESS after the wait', async () => {
    const r = request();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let runs = 0;
    const work = async () => {
      runs++;
      await gate;
      return { statusCode: 201, body: { ok: true } };
    };
    const impatient = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 50 });
    const first = store.idempotent(tenant.tenantId, r, work);
    await sleep(20);
    const error = await impatient.idempotent(tenant.tenantId, r, work).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 409, code: 'IDEMPOTENCY_IN_PROGRESS', headers: { 'retry-after': '1' } });
    const waiting = store.idempotent(tenant.tenantId, r, work);
    await sleep(30);
    open();
    expect(await first).toEqual({ statusCode: 201, body: { ok: true }, replayed: false });
    expect(await waiting).toEqual({ statusCode: 201, body: { ok: true }, replayed: true });
    expect(runs).toBe(1);
  });

  it('20 concurrent requests with one key, through two store instances, run the work once', async () => {
    const r = request({ amount: '99.5' });
    const other = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 5_000 });
    let runs = 0;
    const work = async () => {
      runs++;
      await sleep(100);
      return { statusCode: 201, body: { transferId: randomUUID() } };
    };
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).idempotent(tenant.tenantId, r, work)));
    expect(runs).toBe(1);
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => JSON.stringify(o.body))).size).toBe(1);
  });

  it('a claim abandoned by a crashed instance is taken over once its lease has passed; the old claim can no longer store', async () => {
    const r = request();
    const crashed = await store.begin(tenant.tenantId, r);
    expect(crashed.kind).toBe('run');
    const impatient = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 0 });
    await expect(impatient.idempotent(tenant.tenantId, r, async () => ({ statusCode: 201, body: {} }))).rejects.toMatchObject({
      code: 'IDEMPOTENCY_IN_PROGRESS',
    });
    h.clock.advance(store.leaseMs + 1);
    const retried = await store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 201, body: { by: 'retry' } }));
    expect(retried).toEqual({ statusCode: 201, body: { by: 'retry' }, replayed: false });
    if (crashed.kind === 'run') await crashed.finish({ statusCode: 201, contentType: null, body: '{"by":"crashed"}' });
    expect((await store.idempotent(tenant.tenantId, r, async () => ({ statusCode: 500, body: {} }))).body).toEqual({ by: 'retry' });
  });

  it('keys expire after 24 hours: a repeat then runs afresh, and the prune deletes expired rows', async () => {
    const { calls, work } = counter();
    const r = request();
    const t = await newTenant();
    await store.idempotent(t.tenantId, r, work);
    await store.idempotent(t.tenantId, { ...r, key: randomUUID() }, work);
    h.clock.advance(24 * HOUR - 1000);
    expect((await store.idempotent(t.tenantId, r, work)).replayed).toBe(true);
    h.clock.advance(2000);
    expect((await store.idempotent(t.tenantId, r, work)).replayed).toBe(false);
    expect(calls.n).toBe(3);
    const rows = () => h.container.platform.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, t.tenantId));
    expect(await rows()).toHaveLength(2);
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    const left = await rows();
    expect(left).toHaveLength(1);
    expect(left[0]!.key).toBe(r.key);
    h.clock.advance(24 * HOUR + 1);
    await store.prune(1);
    expect(await rows()).toHaveLength(0);
  });

  it('prunes opportunistically in the background, at most once per interval', async () => {
    const pruning = createIdempotencyStore({
      db: h.container.platform.db,
      clock: h.clock,
      background: h.container.platform.background,
      pruneEveryMs: HOUR,
      tenantIds: () => mine,
    });
    const t = await newTenant();
    const r = request();
    await pruning.idempotent(t.tenantId, r, async () => ({ statusCode: 200, body: {} }));
    h.clock.advance(25 * HOUR);
    const row = () =>
      h.container.platform.db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.tenantId, t.tenantId), eq(idempotencyKeys.key, r.key)));
    expect(await row()).toHaveLength(1);
    await pruning.idempotent(t.tenantId, request(), async () => ({ statusCode: 200, body: {} }));
    await h.container.platform.background.drain();
    expect(await row()).toHaveLength(0);
  });
});
