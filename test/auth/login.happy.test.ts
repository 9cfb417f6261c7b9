import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const register = (email: string, password = 'correct horse battery', fullName?: string) =>
  h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password, fullName } });
const login = (url: string, email: string, password: string) =>
  h.inject({ method: 'POST', url, headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password } });

describe('registration and login', () => {
  it('POST /auth/email creates the user (201, no hash), and both login routes answer a pair', async () => {
    const res = await register('Reg@Example.com', 'correct horse battery', 'Reg User');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email: 'reg@example.com', fullName: 'Reg User', emailVerified: false, role: 'user' });
    expect(res.body).not.toMatch(/argon2|password/i);

    for (const url of ['/auth/email/login', '/auth/login']) {
      const pair = await login(url, 'reg@example.com', 'correct horse battery');
      expect(pair.statusCode).toBe(201);
      expect(pair.json()).toMatchObject({
        accessToken: expect.stringMatching(/^ey/),
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        tokenType: 'Bearer',
        expiresIn: 900,
      });
      const me = await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(pair.json().accessToken) });
      expect(me.json()).toMatchObject({ email: 'reg@example.com' });
    }
  });

  it('stores the password as argon2id with the OWASP parameters', async () => {
    await register('hash@example.com', 'another good passphrase');
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, 'hash@example.com');
    const cred = await h.container.auth.checkPassword(h.tenant.tenantId, 'hash@example.com', 'another good passphrase');
    expect(cred.id).toBe(user!.id);
    const { credentials } = await import('../../src/modules/auth/table.js');
    const { eq } = await import('drizzle-orm');
    const [row] = await h.database.db.select().from(credentials).where(eq(credentials.userId, user!.id));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe('service tokens', () => {
  it('POST /auth/users/{userId}/token mints a working pair for a user of the tenant', async () => {
    const userId = await h.createUser(undefined, 'minted@example.com');
    const res = await h.inject({ method: 'POST', url: `/auth/users/${userId}/token`, headers: h.keyHeaders() });
    expect(res.statusCode).toBe(201);
    const me = await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(res.json().accessToken) });
    expect(me.json()).toMatchObject({ id: userId, email: 'minted@example.com' });
  });
});

describe('JWKS', () => {
  it('is public, outside tenancy and cacheable', async () => {
    const res = await h.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('max-age');
    expect(res.json().keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String), x: expect.any(String) });
  });
});
