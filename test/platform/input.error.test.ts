import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startSession } from '../helpers/kyc.js';
import { expectError } from '../helpers/security.js';
import { countUsers, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const json = () => ({ 'content-type': 'application/json', ...h.keyHeaders() });

/** Sends raw bytes over a socket and answers what the server wrote back. */
function rawRequest(text: string): Promise<string> {
  const { port } = new URL(h.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('text PostgreSQL cannot store is refused at validation, for every part of every route', () => {
  it('NUL in a body string: 400 naming the field, and no row written', async () => {
    const before = await countUsers(h);
    const res = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: { email: 'nul@example.com', fullName: 'Ada\u0000' } });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.json().message).toBe('body.fullName must not contain NUL or unpaired surrogate characters');
    expect(await countUsers(h)).toBe(before);
  });

  it('an unpaired surrogate, a NUL in a field name, and a NUL deep in an array are refused too', async () => {
    const payloads = ['{"email":"s@example.com","fullName":"\\ud800x"}', '{"email":"k@example.com","a\\u0000":1}', '{"type":"income","documentIds":["\\u0000"]}'];
    for (const payload of payloads) {
      const url = payload.includes('income') ? '/accreditations' : '/users';
      expectError(await h.inject({ method: 'POST', url, headers: json(), payload }), 400, 'VALIDATION_FAILED');
    }
  });

  it('%00 in query filters and path parameters: 400', async () => {
    for (const q of ['email', 'evmEoa', 'xrplSecureAccountAddress']) {
      const res = await h.inject({ method: 'GET', url: `/users?${q}=a%00b`, headers: h.keyHeaders() });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.json().message).toContain(`querystring.${q}`);
    }
    expectError(await h.inject({ method: 'GET', url: '/users/%00', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
    // A surrogate encoded in UTF-8 is not UTF-8: the router refuses the URL itself.
    expectError(await h.inject({ method: 'GET', url: '/users/%ED%A0%80', headers: h.keyHeaders() }), 400, 'MALFORMED_URL');
  });

  it('a refused reject or approve changes nothing', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    for (const action of ['reject', 'approve', 'request-resubmission']) {
      const res = await h.inject({ method: 'PUT', url: `/kyc/${action}/${kycId}`, headers: h.keyHeaders(), payload: { reason: 'x\u0000' } });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const detail = await readKyc(h, kycId);
    expect(detail.status).toBe('created');
    expect(detail.history).toHaveLength(1);
  });
});

describe('numbers', () => {
  it('limit and offset must be finite integers in range on every list', async () => {
    const adminId = await h.createUser(undefined, undefined, 'admin');
    const token = await h.tokenFor(adminId);
    const lists = ['/users?', '/audit-events?', '/kyc/attempts?', '/kyc/kycs?', `/accreditations?userId=${adminId}&`, `/kyc?userId=${adminId}&`];
    for (const list of lists) {
      for (const bad of ['limit=1e309', 'offset=1e309', 'limit=-1e309', 'limit=NaN', 'limit=1.5', 'offset=-1', 'limit=0', 'limit=101', 'offset=1e8']) {
        const res = await h.inject({ method: 'GET', url: `${list}${bad}`, headers: h.bearerHeaders(token) });
        expectError(res, 400, 'VALIDATION_FAILED');
      }
      const ok = await h.inject({ method: 'GET', url: `${list}limit=5&offset=0`, headers: h.bearerHeaders(token) });
      expect(ok.statusCode, `${list} ${ok.body}`).toBe(200);
    }
  });

  it('JSON bodies are never coerced: a number for a string field is 400, and 1e309 is not a number', async () => {
    const before = await countUsers(h);
    const res = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: { email: 'n@example.com', fullName: 12345 } });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.json().message).toContain('body.fullName must be string');
    const asText = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: { email: 'n@example.com', fullName: 'Ada', role: 1 } });
    expectError(asText, 400, 'VALIDATION_FAILED');
    const infinite = '{"email":"i@example.com","fullName":1e309}';
    expectError(await h.inject({ method: 'POST', url: '/users', headers: json(), payload: infinite }), 400, 'VALIDATION_FAILED');
    expect(await countUsers(h)).toBe(before);
  });
});

describe('bodies that are not JSON objects', () => {
  it('text/plain, no content type, or any other media type: 415 in the error shape', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const res = await h.inject({ method: 'POST', url: '/users', headers: { ...h.keyHeaders(), 'content-type': type }, payload: 'email=a@b.co' });
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const untyped = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: Buffer.from('{"email":"a@b.co"}') });
    expectError(untyped, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('null, an array and 1,000-deep nesting: 400', async () => {
    for (const payload of ['null', '[]', '"x"', '['.repeat(1000) + ']'.repeat(1000), `{"email":"d@example.com","fullName":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`]) {
      expectError(await h.inject({ method: 'POST', url: '/users', headers: json(), payload }), 400, 'VALIDATION_FAILED');
    }
    expectError(await h.inject({ method: 'POST', url: '/auth/logout', headers: json(), payload: '[]' }), 403, 'FORBIDDEN');
  });
});

describe('answers produced before any route runs have the error shape', () => {
  it('a path segment over 100 characters: 414; a malformed percent-encoding: 400', async () => {
    expectError(await h.inject({ method: 'GET', url: `/users/${'a'.repeat(200)}`, headers: h.keyHeaders() }), 414, 'URL_TOO_LONG');
    expectError(await h.inject({ method: 'GET', url: '/users/%E0%A4%A', headers: h.keyHeaders() }), 400, 'MALFORMED_URL');
  });

  it("Node's HTTP parser: a malformed header line is 400 and oversized headers 431, both with a code", async () => {
    const bad = await rawRequest('GET /health HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(bad.slice(bad.indexOf('\r\n\r\n') + 4))).toEqual({ statusCode: 400, error: 'Bad Request', message: 'The request is not valid HTTP', code: 'MALFORMED_REQUEST' });
    const big = await rawRequest(`GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ statusCode: 431, code: 'HEADERS_TOO_LARGE' });
  });
});
