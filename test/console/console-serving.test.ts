import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, registerConsole } from '../../src/platform/http/console.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** The directives of a CSP header, by name. */
function directives(header: string | undefined): Map<string, string[]> {
  return new Map(
    (header ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('the operator console is served under /console with a strict content security policy', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bastion-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/console/assets/app-1.js"></script>');
    writeFileSync(join(dir, 'assets', 'app-1.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.bin'), 'x');
    app = Fastify();
    registerConsole(app, dir);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the policy: own origin only, no inline script or style, no external font or CDN, never framed", () => {
    const d = directives(CONSOLE_CSP);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('style-src')).toEqual(["'self'"]);
    expect(d.get('font-src')).toEqual(["'self'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    for (const values of d.values()) {
      expect(values).not.toContain("'unsafe-inline'");
      expect(values).not.toContain("'unsafe-eval'");
      expect(values.some((v) => /^https?:/.test(v) || v === '*')).toBe(false);
    }
  });

  it('every page of the console is index.html (the app routes in the browser), with the policy; assets are cached immutably', async () => {
    for (const url of ['/console/', '/console/users', '/console/kyc/0b6f4f7e-0000-4000-8000-000000000000']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<title>console</title>');
    }
    const redirect = await app.inject({ method: 'GET', url: '/console' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/console/');
    const asset = await app.inject({ method: 'GET', url: '/console/assets/app-1.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it('a missing asset, a file of another type and a path out of the folder are 404, never index.html or a file elsewhere', async () => {
    for (const url of ['/console/assets/missing.js', '/console/secret.bin', '/console/..%2f..%2fpackage.json', '/console/assets/..%2f..%2f..%2fpackage.json', '/console/..%2f..%2fREADME.md.txt']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('<title>console</title>');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
    // Dot segments are resolved by the router before the console sees the path: not a console route at all.
    expect((await app.inject({ method: 'GET', url: '/console/%2e%2e/%2e%2e/etc/passwd.txt' })).statusCode).toBe(404);
  });

  it('without a build: 503 saying how to build it (the service itself still runs)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'bastion-console-none-'));
    const bare = Fastify();
    registerConsole(bare, empty);
    try {
      const res = await bare.inject({ method: 'GET', url: '/console/users' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('npm run build');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['cache-control']).toBe('no-store');
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('in the service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it("the console's answers carry its policy, not the API's default one; the API's answers keep theirs", async () => {
    const page = await h.inject({ method: 'GET', url: '/console/' });
    // 200 once `npm run build` has built it, 503 before: the policy either way.
    expect([200, 503]).toContain(page.statusCode);
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const api = await h.inject({ method: 'GET', url: '/health' });
    expect(api.headers['content-security-policy']).not.toBe(CONSOLE_CSP);
    expect(api.headers['content-security-policy']).toContain("default-src 'self'");
  });
});
