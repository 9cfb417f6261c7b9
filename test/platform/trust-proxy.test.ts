import { afterAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

// The client address decides the per-address limits (login, mail flows, IdP start).
describe('client address behind a proxy (TRUST_PROXY)', () => {
  const harnesses = new Map<string, Harness>();
  afterAll(async () => {
    for (const h of harnesses.values()) await h.close();
  });

  const addressSeen = async (trustProxy: string, peer: string, forwardedFor: string) => {
    let h = harnesses.get(trustProxy);
    if (!h) {
      h = await createHarness({
        env: { TRUST_PROXY: trustProxy },
        beforeReady: (app) => app.get('/__ip', { config: { tenancy: false } }, async (request) => ({ ip: request.ip })),
      });
      harnesses.set(trustProxy, h);
    }
    const res = await h.inject({ method: 'GET', url: '/__ip', headers: { 'x-forwarded-for': forwardedFor }, remoteAddress: peer });
    return (res.json() as { ip: string }).ip;
  };

  it('ignores X-Forwarded-For by default, so a client cannot pick its own address', async () => {
    expect(await addressSeen('off', '10.1.2.3', '203.0.113.9')).toBe('10.1.2.3');
  });

  it('with a hop count, takes the address the nearest proxy saw', async () => {
    expect(await addressSeen('1', '10.1.2.3', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('with proxy ranges, believes only peers inside them', async () => {
    expect(await addressSeen('10.0.0.0/8', '10.1.2.3', '203.0.113.9')).toBe('203.0.113.9');
    expect(await addressSeen('10.0.0.0/8', '192.0.2.5', '203.0.113.9')).toBe('192.0.2.5');
  });
});
