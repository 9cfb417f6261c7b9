import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

// The client address decides the per-address limits (login, mail flows, IdP start).
describe('client address behind a proxy (TRUST_PROXY)', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  const addressSeen = async (trustProxy: string | undefined, forwardedFor: string) => {
    h = await createHarness({
      env: { TRUST_PROXY: trustProxy },
      beforeReady: (app) => app.get('/__ip', { config: { tenancy: false } }, async (request) => ({ ip: request.ip })),
    });
    const res = await h.inject({ method: 'GET', url: '/__ip', headers: { 'x-forwarded-for': forwardedFor }, remoteAddress: '10.1.2.3' });
    return (res.json() as { ip: string }).ip;
  };

  it('ignores X-Forwarded-For by default, so a client cannot pick its own address', async () => {
    expect(await addressSeen(undefined, '203.0.113.9')).toBe('10.1.2.3');
  });

  it('with a hop count, takes the address the nearest proxy saw', async () => {
    expect(await addressSeen('1', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('with proxy ranges, believes only proxies inside them', async () => {
    expect(await addressSeen('10.0.0.0/8', '203.0.113.9')).toBe('203.0.113.9');
  });

  it('a peer outside the trusted ranges is taken at its own address', async () => {
    expect(await addressSeen('192.168.0.0/16', '203.0.113.9')).toBe('10.1.2.3');
  });
});
