import { createServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { configureIdv } from '../helpers/kyc.js';
import { readUser, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

async function manualRecord(userId: string, tenant = h.tenant): Promise<string> {
  const res = await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(tenant), payload: { userId, provider: 'manual' } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().kycId;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('impossible transitions are 409 and change nothing', () => {
  it('approving, rejecting or asking resubmission of a decided record', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId);
    expect((await h.inject({ method: 'PUT', url: `/kyc/approve/${kycId}`, headers: h.keyHeaders() })).statusCode).toBe(200);
    const attempts = [
      { url: `/kyc/approve/${kycId}`, payload: {} },
      { url: `/kyc/reject/${kycId}`, payload: { reason: 'late' } },
      { url: `/kyc/request-resubmission/${kycId}`, payload: { reason: 'late' } },
    ];
    for (const { url, payload } of attempts) {
      const res = await h.inject({ method: 'PUT', url, headers: h.keyHeaders(), payload });
      expectError(res, 409, 'KYC_TRANSITION_INVALID');
      expect(res.json().message).toContain('approved');
    }
    const detail = await readKyc(h, kycId);
    expect(detail.status).toBe('approved');
    expect(detail.history).toHaveLength(2);
  });

  it('a declined record cannot be approved', async () => {
    const kycId = await manualRecord(await h.createUser());
    await h.inject({ method: 'PUT', url: `/kyc/reject/${kycId}`, headers: h.keyHeaders(), payload: { reason: 'fraud' } });
    expectError(await h.inject({ method: 'PUT', url: `/kyc/approve/${kycId}`, headers: h.keyHeaders() }), 409, 'KYC_TRANSITION_INVALID');
  });
});

describe('not found', () => {
  it('404 for an unknown record on every record route', async () => {
    const id = randomUUID();
    for (const [method, url, payload] of [
      ['GET', `/kyc/current/${id}`, undefined],
      ['GET', `/kyc/current?kycId=${id}`, undefined],
      ['PATCH', `/kyc/${id}`, { level: 'x' }],
      ['PUT', `/kyc/approve/${id}`, {}],
      ['PUT', `/kyc/reject/${id}`, { reason: 'r' }],
      ['PUT', `/kyc/request-resubmission/${id}`, { reason: 'r' }],
    ] as const) {
      expectError(await h.inject({ method, url, headers: h.keyHeaders(), payload }), 404, 'KYC_NOT_FOUND');
    }
  });

  it("404 for another tenant's record, and nothing changes there", async () => {
    const other = await h.newTenant();
    const foreign = await manualRecord(await h.createUser(other), other);
    expectError(await h.inject({ method: 'GET', url: `/kyc/current/${foreign}`, headers: h.keyHeaders() }), 404, 'KYC_NOT_FOUND');
    expectError(await h.inject({ method: 'PUT', url: `/kyc/approve/${foreign}`, headers: h.keyHeaders() }), 404, 'KYC_NOT_FOUND');
    expectError(await h.inject({ method: 'PATCH', url: `/kyc/${foreign}`, headers: h.keyHeaders(), payload: { level: 'x' } }), 404, 'KYC_NOT_FOUND');
    expect((await readKyc(h, foreign, other)).status).toBe('created');
  });

  it("a plain user reaching another user's record or list gets 404", async () => {
    const owner = await h.createUser();
    const kycId = await manualRecord(owner);
    const intruder = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    expectError(await h.inject({ method: 'GET', url: `/kyc/current/${kycId}`, headers: intruder }), 404, 'KYC_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/kyc/current?kycId=${kycId}`, headers: intruder }), 404, 'KYC_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/kyc?userId=${owner}`, headers: intruder }), 404, 'USER_NOT_FOUND');
  });

  it("404 when naming a user of another tenant", async () => {
    const other = await h.newTenant();
    const foreignUser = await h.createUser(other);
    expectError(await h.inject({ method: 'GET', url: `/kyc?userId=${foreignUser}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    expectError(
      await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(), payload: { userId: foreignUser, provider: 'manual' } }),
      404,
      'USER_NOT_FOUND',
    );
    expect((await h.inject({ method: 'GET', url: `/kyc/kycs?userId=${foreignUser}`, headers: h.keyHeaders() })).json()).toEqual({ total: 0, data: [] });
  });

  it('404 for an unknown user on GET /kyc and POST /kyc/kyc', async () => {
    expectError(await h.inject({ method: 'GET', url: `/kyc?userId=${randomUUID()}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    for (const provider of ['manual', 'idv-a']) {
      expectError(
        await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(), payload: { userId: randomUUID(), provider } }),
        404,
        'USER_NOT_FOUND',
      );
    }
  });
});

describe('validation', () => {
  it('400 for malformed ids, bad bodies and bad queries, naming the field', async () => {
    const kycId = await manualRecord(await h.createUser());
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/kyc/current/not-a-uuid', undefined, 'params.kycId'],
      ['GET', '/kyc/current', undefined, 'kycId is required'],
      ['GET', '/kyc', undefined, 'userId is required'],
      ['GET', '/kyc/kycs?status=done', undefined, 'querystring.status'],
      ['GET', '/kyc/kycs?limit=101', undefined, 'querystring.limit'],
      ['PUT', `/kyc/request-resubmission/${kycId}`, { reason: '' }, 'body.reason'],
      ['PUT', `/kyc/approve/${kycId}`, { status: 'approved' }, 'body.status is not allowed'],
      ['PATCH', `/kyc/${kycId}`, {}, 'body'],
      ['PATCH', `/kyc/${kycId}`, { status: 'approved' }, 'body.status is not allowed'],
      ['PATCH', `/kyc/${kycId}`, { country: 'Germany' }, 'body.country'],
      ['PATCH', `/kyc/${kycId}`, { dateOfBirth: '10/12/1815' }, 'body.dateOfBirth'],
      ['POST', '/kyc/kyc', { provider: 'manual' }, 'userId is required'],
      ['POST', '/kyc/kyc', { userId: randomUUID(), provider: 'other' }, 'body.provider'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await h.inject({ method: method as 'GET', url, headers: h.keyHeaders(), payload: payload as object });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.json().message, `${method} ${url}`).toContain(field);
    }
    const userHeaders = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    const bad = await h.inject({ method: 'POST', url: '/kyc', headers: userHeaders, payload: { callbackUrl: 'not a url', role: 'admin' } });
    expectError(bad, 400, 'VALIDATION_FAILED');
    const malformed = await h.inject({ method: 'POST', url: '/kyc', headers: { ...userHeaders, 'content-type': 'application/json' }, payload: '{"firstName":' });
    expectError(malformed, 400, 'MALFORMED_JSON');
    expect((await readKyc(h, kycId)).history).toHaveLength(1);
  });
});

describe('provider failures', () => {
  it('503 when the provider cannot be reached (one status per reason: try later), and no record is left behind', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t);
    await configureIdv(h, t.tenantId, 'idv-a', {
      baseUrl: `http://127.0.0.1:${await closedPort()}/api`,
      clientId: 'acme',
      webhookSecret: 'a-secret-of-enough-length',
    });
    const res = await h.inject({ method: 'POST', url: '/kyc', headers: h.bearerHeaders(await h.tokenFor(userId, t), t), payload: {} });
    expectError(res, 503, 'KYC_PROVIDER_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    expect((await h.inject({ method: 'GET', url: '/kyc/kycs', headers: h.keyHeaders(t) })).json().total).toBe(0);
    expect((await readUser(h, userId, t)).kycStatus).toBeNull();
  });

  it('502 when the provider refuses the request (the sandbox does not know this client)', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t);
    await configureIdv(h, t.tenantId, 'idv-a', {
      baseUrl: `${h.baseUrl}/sandbox/idv-a`,
      clientId: t.tenantId,
      webhookSecret: 'not-the-secret-the-sandbox-has',
    });
    const res = await h.inject({ method: 'POST', url: '/kyc/idv-a/session', headers: h.bearerHeaders(await h.tokenFor(userId, t), t), payload: {} });
    expectError(res, 502, 'KYC_PROVIDER_ERROR');
    expect((await h.inject({ method: 'GET', url: '/kyc/kycs', headers: h.keyHeaders(t) })).json().total).toBe(0);
  });
});
