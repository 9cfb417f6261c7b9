import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const PRODUCTION = { NODE_ENV: 'production', MASTER_KEY: '5e'.repeat(32) };

describe('sandbox settings', () => {
  it('on by default outside production, off in production unless SANDBOXES=on', () => {
    expect(loadConfig({})).toMatchObject({ sandboxes: true, idvSandbox: true, production: false });
    expect(loadConfig(PRODUCTION)).toMatchObject({ sandboxes: false, idvSandbox: false, production: true });
    expect(loadConfig({ ...PRODUCTION, SANDBOXES: 'on' })).toMatchObject({ sandboxes: true, idvSandbox: true });
    expect(loadConfig({ SANDBOXES: 'off' })).toMatchObject({ sandboxes: false, idvSandbox: false });
    expect(loadConfig({ ...PRODUCTION, SANDBOXES: 'on', IDV_SANDBOX: 'off' })).toMatchObject({ sandboxes: true, idvSandbox: false });
  });

  it('IDV_SANDBOX=on alone does not turn a sandbox on in production; a bad value names the variable', () => {
    expect(() => loadConfig({ ...PRODUCTION, IDV_SANDBOX: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...PRODUCTION, IDV_SANDBOX: 'on' })).toThrow(/SANDBOXES=on/);
    expect(() => loadConfig({ SANDBOXES: 'maybe' })).toThrow('Invalid configuration: SANDBOXES must be on or off');
  });
});

describe('a production service', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('serves no sandbox page and says so in GET /ready', async () => {
    h = await createHarness({ env: { NODE_ENV: 'production' } });
    expect((await h.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ status: 'ready', sandboxes: [] });
    for (const url of ['/sandbox/idv-a/v1/sessions', '/sandbox/idv-b/v1/sessions', '/sandbox/bank-link/link/token/create', '/sandbox/business-profile-a/v1/businesses', '/sandbox/custody-b/auth/action/init', '/sandbox/custody-a/v2/vaults']) {
      const res = await h.inject({ method: 'POST', url, payload: {} });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ROUTE_NOT_FOUND');
    }
  }, 180_000);

  it('with SANDBOXES=on serves them and says so in GET /ready', async () => {
    h = await createHarness({ env: { NODE_ENV: 'production', SANDBOXES: 'on' } });
    expect((await h.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ status: 'ready', sandboxes: ['idv-a', 'idv-b', 'business-profile-a', 'bank-link', 'custody-a', 'custody-b', 'xrpl-ledger'] });
    for (const url of ['/sandbox/idv-a/v1/sessions', '/sandbox/idv-b/v1/sessions']) {
      // The sandbox answers (here: refusing an unauthenticated call), the router does not 404.
      const res = await h.inject({ method: 'POST', url, payload: {} });
      expect(res.json().code).not.toBe('ROUTE_NOT_FOUND');
      expect(res.statusCode).toBeLessThan(500);
    }
  }, 180_000);
});
