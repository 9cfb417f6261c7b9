import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { redactUrl } from '../../src/platform/log/logger.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('logging', () => {
  it('never writes API keys, bearer tokens or secret query values', async () => {
    const userId = await h.createUser();
    const token = await h.tokenFor(userId);
    await h.inject({ method: 'GET', url: '/users?limit=5', headers: h.keyHeaders() });
    await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) });
    await h.inject({ method: 'GET', url: '/users/me?token=supersecretvalue&code=123456', headers: h.bearerHeaders(token) });
    const text = h.logs.text();
    // One access line per request, with the method, the URL (secret values redacted) and the status.
    const access = h.logs.lines.map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } }).filter((l) => l.msg === 'request completed');
    expect(access.length).toBeGreaterThanOrEqual(3);
    expect(access.find((l) => l.req?.url?.startsWith('/users/me?'))).toMatchObject({
      req: { method: 'GET', url: '/users/me?token=%5BREDACTED%5D&code=%5BREDACTED%5D', tenant: h.tenant.tenantId },
      res: { statusCode: 200 },
    });
    expect(text).not.toContain('incoming request');
    expect(text).not.toContain(h.tenant.apiKey);
    expect(text).not.toContain(token);
    expect(text).not.toContain('supersecretvalue');
    expect(text).not.toContain('123456');
  });

  it('redacts secret query parameters only', () => {
    expect(redactUrl('/a?token=x&limit=2')).toBe('/a?token=%5BREDACTED%5D&limit=2');
    expect(redactUrl('/a?limit=2')).toBe('/a?limit=2');
  });
});
