import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_MS, SERVER_TIMEOUTS } from '../../src/platform/http/connection.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { makePdf } from '../documents/fixtures.js';

const MB = 1024 * 1024;

interface Answer {
  status: number | undefined;
  head: string;
  json: unknown;
  /** Bytes of body the client had written when the first byte of the answer arrived. */
  sentAtAnswer: number;
  /** The server ended or reset the connection (rather than the client giving up). */
  closed: boolean;
}

function parse(received: Buffer, sentAtAnswer: number, closed: boolean): Answer {
  const text = received.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split + 4);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = body;
  }
  return { status: status ? Number(status) : undefined, head: head.toLowerCase(), json, sentAtAnswer, closed };
}

/**
 * A raw socket sends the request head and `preamble` as one HTTP chunk, then `filler` chunks
 * without end: until the server answers and closes, or `budget` bytes went out (the client then
 * gives up: the server never cut it off).
 */
function streamForever(
  h: Harness,
  path: string,
  headers: Record<string, string>,
  preamble: Buffer,
  filler: Buffer,
  budget: number,
  options: { ignoreEnd?: boolean } = {},
): Promise<Answer> {
  const { port } = new URL(h.baseUrl);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    let sent = 0;
    let sentAtAnswer = -1;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(parse(received, sentAtAnswer, closed));
    };
    socket.on('data', (data: Buffer) => {
      if (sentAtAnswer < 0) sentAtAnswer = sent;
      received = Buffer.concat([received, data]);
    });
    if (!options.ignoreEnd) socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const head = [`POST ${path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'transfer-encoding: chunked', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    const frame = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    const pump = () => {
      while (!done) {
        if (sent > budget) return finish(false);
        sent += filler.length;
        if (!socket.write(frame(filler))) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head.join('\r\n') + '\r\n\r\n');
      if (preamble.length > 0) socket.write(frame(preamble));
      pump();
    });
  });
}

const BOUNDARY = '----bastionstream';
const field = (name: string, value: string) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
const FORM = `multipart/form-data; boundary=${BOUNDARY}`;
const FILLER = Buffer.alloc(256 * 1024, 0x20);

describe('a body that never ends is cut off at its limit, answered, and its connection closed', () => {
  let h: Harness;
  let userHeaders: Record<string, string>;
  beforeAll(async () => {
    h = await createHarness({ listen: true });
    userHeaders = h.bearerHeaders(await h.tokenFor(await h.createUser()));
  });
  afterAll(async () => {
    await h.close();
  });

  function expectCutOff(answer: Answer, status: number, code: string, limit: number) {
    expect(answer.status, answer.head).toBe(status);
    expect(answer.json).toMatchObject({ statusCode: status, code, message: expect.any(String) });
    expect(answer.head).toContain('connection: close');
    expect(answer.closed).toBe(true);
    // The answer comes within a few chunks of the limit (the client cannot tell the server's reads
    // from its own buffers: the sockets' buffers on both sides are a few MiB at most).
    expect(answer.sentAtAnswer).toBeLessThan(limit + 8 * MB);
  }

  it('POST /user-documents: a file part past 20 MiB gets 413 DOCUMENT_TOO_LARGE', async () => {
    const preamble = Buffer.concat([
      field('type', 'identity'),
      field('name', 'Passport'),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      makePdf(),
    ]);
    const answer = await streamForever(h, '/user-documents', { ...userHeaders, 'content-type': FORM }, preamble, FILLER, 200 * MB);
    expectCutOff(answer, 413, 'DOCUMENT_TOO_LARGE', 20 * MB);
  });

  it('POST /user-documents: a field that never ends, or a preamble that never ends, is cut off at the form limit too (413)', async () => {
    const openField = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\n`);
    expectCutOff(await streamForever(h, '/user-documents', { ...userHeaders, 'content-type': FORM }, openField, FILLER, 200 * MB), 413, 'DOCUMENT_TOO_LARGE', 20 * MB);
    expectCutOff(await streamForever(h, '/user-documents', { ...userHeaders, 'content-type': FORM }, Buffer.alloc(0), FILLER, 200 * MB), 413, 'DOCUMENT_TOO_LARGE', 20 * MB);
  });

  it('POST /user-documents: parts without end (fields, files) get a 400 at the first one too many, and the connection closes', async () => {
    const fields = Buffer.concat(Array.from({ length: 1000 }, (_, i) => field(`f${i}`, 'x')));
    const manyFields = await streamForever(h, '/user-documents', { ...userHeaders, 'content-type': FORM }, Buffer.alloc(0), fields, 200 * MB);
    expectCutOff(manyFields, 400, 'DOCUMENT_FORM_INVALID', 0);
    const file = (i: number) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${i}.png"\r\nContent-Type: image/png\r\n\r\nx\r\n`);
    const files = Buffer.concat(Array.from({ length: 1000 }, (_, i) => file(i)));
    const manyFiles = await streamForever(h, '/user-documents', { ...userHeaders, 'content-type': FORM }, Buffer.alloc(0), files, 200 * MB);
    expectCutOff(manyFiles, 400, 'DOCUMENT_FORM_INVALID', 0);
    expect(manyFiles.json).toMatchObject({ message: 'one file per upload' });
  });

  it('POST /user-documents refused before its body is read (no credentials): 401, and the connection closes', async () => {
    const answer = await streamForever(h, '/user-documents', { 'x-tenant-id': h.tenant.tenantId, 'content-type': FORM }, Buffer.alloc(0), FILLER, 200 * MB);
    expectCutOff(answer, 401, 'CREDENTIALS_REQUIRED', 0);
  });

  it('JSON routes (POST /tenant-documents at its ~27 MiB, POST /users at 1 MiB): 413 BODY_TOO_LARGE', async () => {
    const json = { ...h.keyHeaders(), 'content-type': 'application/json' };

    expectCutOff(await streamForever(h, '/tenant-documents', json, Buffer.from('{"title":"'), FILLER, 200 * MB), 413, 'BODY_TOO_LARGE', 28 * MB);
    expectCutOff(await streamForever(h, '/users', json, Buffer.from('{"email":"'), FILLER, 200 * MB), 413, 'BODY_TOO_LARGE', 1 * MB);
  });

  it('the form pages and the signed provider callbacks (raw bodies): 413 BODY_TOO_LARGE', async () => {
    const tenantId = h.tenant.tenantId;
    const routes: Array<[string, string]> = [
      ['/auth/pages/verify-email', 'application/x-www-form-urlencoded'],
      [`/callbacks/business-profile-a/${tenantId}`, 'application/json'],
      [`/custody-a/webhooks/${tenantId}`, 'application/json'],
      [`/bank-link/webhooks/${tenantId}`, 'application/json'],
      ['/kyc/callback/idv-a/event', 'application/json'],
      ['/kyc/callback/idv-b', 'text/plain'],
    ];
    for (const [path, type] of routes) {
      const answer = await streamForever(h, path, { 'content-type': type }, Buffer.alloc(0), FILLER, 100 * MB);
      expect(answer.status, path).toBe(413);
      expectCutOff(answer, 413, 'BODY_TOO_LARGE', 1 * MB);
    }
  });

  it('a client that sends on after the answer and its end is cut off within the linger time', async () => {
    const json = { ...h.keyHeaders(), 'content-type': 'application/json' };
    const started = Date.now();
    const answer = await streamForever(h, '/users', json, Buffer.from('{"email":"'), FILLER, 10_000 * MB, { ignoreEnd: true });
    expectCutOff(answer, 413, 'BODY_TOO_LARGE', 1 * MB);
    expect(Date.now() - started).toBeLessThan(LINGER_MS + 2000);
  });
});


/** Writes `pieces` one every `everyMs`, and returns what the server answered when it closed. */
function trickle(h: Harness, pieces: () => string | undefined, everyMs: number): Promise<Answer & { elapsedMs: number }> {
  const { port } = new URL(h.baseUrl);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setInterval(() => {
      const next = pieces();
      if (next !== undefined && socket.writable) socket.write(next);
    }, everyMs);
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      resolve({ ...parse(received, 0, true), elapsedMs: Date.now() - started });
    };
    socket.on('data', (data: Buffer) => (received = Buffer.concat([received, data])));
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

describe('server timeouts', () => {
  it('are set on the HTTP server by default', async () => {
    const h = await createHarness({ listen: true });
    try {
      expect(h.app.server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeoutMs);
      expect(h.app.server.requestTimeout).toBe(SERVER_TIMEOUTS.requestTimeoutMs);
      expect(h.app.server.keepAliveTimeout).toBe(SERVER_TIMEOUTS.keepAliveTimeoutMs);
      expect(h.app.server.timeout).toBe(SERVER_TIMEOUTS.connectionTimeoutMs);
      expect(SERVER_TIMEOUTS.headersTimeoutMs).toBeGreaterThan(0);
      expect(SERVER_TIMEOUTS.requestTimeoutMs).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  describe('with short timeouts', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ listen: true, serverTimeouts: { headersTimeoutMs: 400, requestTimeoutMs: 1000, keepAliveTimeoutMs: 3000, checkIntervalMs: 100 } });
    });
    afterAll(async () => {
      await h.close();
    });

    it('headers that trickle in without end get 408 REQUEST_TIMEOUT, and the connection closes', async () => {
      let n = 0;
      const answer = await trickle(h, () => (n++ === 0 ? 'GET /health HTTP/1.1\r\nhost: x\r\n' : `x-h${n}: y\r\n`), 50);
      expect(answer.status).toBe(408);
      expect(answer.json).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT' });
      expect(answer.elapsedMs).toBeLessThan(3000);
    });

    it('a body that trickles in without end gets 408 REQUEST_TIMEOUT, and the connection closes', async () => {
      let n = 0;
      const head = `POST /users HTTP/1.1\r\nhost: x\r\nx-tenant-id: ${h.tenant.tenantId}\r\nx-api-key: ${h.tenant.apiKey}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n`;
      const answer = await trickle(h, () => (n++ === 0 ? head : '1\r\n \r\n'), 50);
      expect(answer.status).toBe(408);
      expect(answer.json).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT' });
      expect(answer.elapsedMs).toBeLessThan(4000);
    });

    it('a keep-alive connection idle for longer than the headers timeout still serves its next request', async () => {
      const { port } = new URL(h.baseUrl);
      const socket = connect(Number(port), '127.0.0.1');
      const answers: string[] = [];
      socket.on('data', (data: Buffer) => answers.push(data.toString('latin1')));
      const request = `GET /health HTTP/1.1\r\nhost: x\r\nx-request-id: ${randomUUID()}\r\n\r\n`;
      await new Promise((resolve) => socket.on('connect', resolve));
      socket.write(request);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      socket.write(request);
      await new Promise((resolve) => setTimeout(resolve, 300));
      socket.destroy();
      expect(answers.join('').match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    });
  });
});
