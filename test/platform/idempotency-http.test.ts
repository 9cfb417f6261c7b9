import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/http/errors.js';
import { installGuards } from '../../src/platform/http/guards.js';
import { errorResponses } from '../../src/platform/http/schemas.js';
import { idempotentRoute, REPLAYED_HEADER } from '../../src/platform/idempotency/http.js';
import { createIdempotencyStore, type IdempotencyStore } from '../../src/platform/idempotency/store.js';
import { createHarness, type Harness } from '../helpers/harness.js';

function expectError(res: { statusCode: number; json: () => unknown }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({ statusCode: status, code, error: expect.any(String), message: expect.any(String) });
}

/** A test-only value-moving route: counts its runs; the test makes it fail or hold on demand. */
describe('idempotent route helper over HTTP', () => {
  let h: Harness;
  let store: IdempotencyStore;
  let runs = 0;
  let failNext: 'throw' | 'unprocessable' | 'limited' | undefined;
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    h = await createHarness({
      beforeReady: (app) =>
        app.register(async (scope) => {
          // Late-bound: the harness's container exists only once createHarness returns.
          installGuards(scope, {
            findTenant: (id) => h.container.guardDeps.findTenant(id),
            verifyApiKey: (t, k) => h.container.guardDeps.verifyApiKey(t, k),
            verifyAccessToken: (token) => h.container.guardDeps.verifyAccessToken(token),
          });
          // Declared as a module's route is: TypeBox types, every status in the schema.
          scope.withTypeProvider<TypeBoxTypeProvider>().post(
            '/__test/wallets/:walletId/transfers',
            {
              config: { auth: { apiKey: true, bearer: 'user' } },
              schema: {
                hide: true,
                params: Type.Object({ walletId: Type.String() }),
                body: Type.Object({ amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), idempotentId: Type.Optional(Type.String()) }, { additionalProperties: false }),
                response: {
                  201: Type.Object({ transferId: Type.String(), walletId: Type.String(), amount: Type.String(), run: Type.Number() }),
                  ...errorResponses(409, 429),
                },
              },
              ...idempotentRoute({ store: { begin: (t, r) => store.begin(t, r) }, bodyField: 'idempotentId' }),
            },
            async (request, reply) => {
              runs++;
              if (gate) await gate;
              const failure = failNext;
              failNext = undefined;
              if (failure === 'throw') throw new Error('provider exploded');
              if (failure === 'unprocessable') throw new AppError(409, 'XRPL_TRANSACTION_REFUSED', 'Not enough funds');
              if (failure === 'limited') throw new AppError(429, 'RATE_LIMITED', 'Too many requests, retry later');
              const { walletId } = request.params;
              const { amount } = request.body;
              return reply.status(201).send({ transferId: randomUUID(), walletId, amount, run: runs });
            },
          );
        }),
    });
    store = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 5_000 });
  });
  afterAll(async () => h.close());

  const post = (key: string | undefined, payload: Record<string, unknown> = { amount: '10' }, headers = h.keyHeaders(), wallet = 'w1') =>
    h.inject({
      method: 'POST',
      url: `/__test/wallets/${wallet}/transfers`,
      headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });

  it('runs the first request; a repeat gets the same status, body and type, marked as replayed', async () => {
    const key = randomUUID();
    const before = runs;
    const first = await post(key);
    expect(first.statusCode).toBe(201);
    expect(first.headers[REPLAYED_HEADER]).toBeUndefined();
    const again = await post(key);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers[REPLAYED_HEADER]).toBe('true');
    expect(runs - before).toBe(1);
  });

  it('the key may come in the body field instead (same request either way); two different keys are 400', async () => {
    const key = randomUUID();
    const first = await post(undefined, { amount: '5', idempotentId: key });
    expect(first.statusCode).toBe(201);
    const viaBoth = await post(key, { amount: '5', idempotentId: key });
    expect(viaBoth.headers[REPLAYED_HEADER]).toBe('true');
    expect(viaBoth.body).toBe(first.body);
    expectError(await post(randomUUID(), { amount: '5', idempotentId: key }), 400, 'IDEMPOTENCY_KEY_MISMATCH');
  });

  it('the same key with another body or another path is 409 IDEMPOTENCY_KEY_REUSED, and nothing runs', async () => {
    const key = randomUUID();
    await post(key, { amount: '10' });
    const before = runs;
    expectError(await post(key, { amount: '11' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await post(key, { amount: '10' }, h.keyHeaders(), 'w2'), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(runs).toBe(before);
  });

  it('no key is 400 IDEMPOTENCY_KEY_REQUIRED; a malformed key is 400 IDEMPOTENCY_KEY_INVALID; nothing runs', async () => {
    const before = runs;
    expectError(await post(undefined), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    for (const bad of ['x'.repeat(256), 'two words', 'clé', '{}']) expectError(await post(bad), 400, 'IDEMPOTENCY_KEY_INVALID');
    expectError(await post(undefined, { amount: '1', idempotentId: '' }), 400, 'IDEMPOTENCY_KEY_INVALID');
    expect(runs).toBe(before);
  });

  it('a request refused by validation or authentication does not use the key up', async () => {
    const key = randomUUID();
    expectError(await post(key, { amount: 'ten' }), 400, 'VALIDATION_FAILED');
    expectError(await post(key, { amount: '10' }, { 'x-tenant-id': h.tenant.tenantId }), 401, 'CREDENTIALS_REQUIRED');
    expectError(await post(key, { amount: '10' }, { 'x-tenant-id': h.tenant.tenantId, 'x-api-key': 'wrong' }), 401, 'API_KEY_INVALID');
    expect((await post(key, { amount: '10' })).statusCode).toBe(201);
  });

  it('a 500 gives the key back (a retry runs); a 429 too; a 4xx is stored and replayed', async () => {
    const key = randomUUID();
    failNext = 'throw';
    expectError(await post(key), 500, 'INTERNAL');
    failNext = 'limited';
    expectError(await post(key), 429, 'RATE_LIMITED');
    const ok = await post(key);
    expect(ok.statusCode).toBe(201);
    expect((await post(key)).body).toBe(ok.body);

    const refused = randomUUID();
    failNext = 'unprocessable';
    const first = await post(refused);
    expectError(first, 409, 'XRPL_TRANSACTION_REFUSED');
    const before = runs;
    const again = await post(refused);
    expect(again.statusCode).toBe(409);
    expect(again.body).toBe(first.body);
    expect(again.headers[REPLAYED_HEADER]).toBe('true');
    expect(runs).toBe(before);
  });

  it('keys are per caller and per tenant: the API key, each user and another tenant each run once', async () => {
    const key = randomUUID();
    const other = await h.newTenant();
    const alice = await h.tokenFor(await h.createUser());
    const bob = await h.tokenFor(await h.createUser());
    const before = runs;
    const answers = [
      await post(key),
      await post(key, undefined, h.bearerHeaders(alice)),
      await post(key, undefined, h.bearerHeaders(bob)),
      await post(key, undefined, h.keyHeaders(other)),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201]);
    expect(runs - before).toBe(4);
    expect(new Set(answers.map((a) => a.json<{ transferId: string }>().transferId)).size).toBe(4);
    expect((await post(key, undefined, h.bearerHeaders(alice))).body).toBe(answers[1]!.body);
  });

  it('20 concurrent requests with one key run the handler once and all get the first answer', async () => {
    const key = randomUUID();
    const before = runs;
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const pending = Promise.all(Array.from({ length: 20 }, () => post(key, { amount: '250.75' })));
    await sleep(150);
    open();
    const answers = await pending;
    gate = undefined;
    expect(runs - before).toBe(1);
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers[REPLAYED_HEADER] === 'true')).toHaveLength(19);
  });

  it('a repeat that outwaits the first request answers 409 IDEMPOTENCY_IN_PROGRESS with Retry-After', async () => {
    const impatient = createIdempotencyStore({ db: h.container.platform.db, clock: h.clock, waitMs: 0 });
    const keep = store;
    const key = randomUUID();
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const first = post(key);
    await sleep(100);
    store = impatient;
    try {
      const busy = await post(key);
      expectError(busy, 409, 'IDEMPOTENCY_IN_PROGRESS');
      expect(busy.headers['retry-after']).toBe('1');
    } finally {
      store = keep;
      gate = undefined;
      open();
    }
    expect((await first).statusCode).toBe(201);
    expect((await post(key)).body).toBe((await first).body);
  });
});
