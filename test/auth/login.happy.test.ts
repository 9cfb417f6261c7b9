import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const tenantApi = () => h.api({ 'x-tenant-id': h.tenant.tenantId });
const register = (email: string, password = 'correct horse battery', fullName?: string) =>
  tenantApi().POST('/auth/email', { body: { email, password, ...(fullName ? { fullName } : {}) } });
const login = (url: '/auth/email/login' | '/auth/login', email: string, password: string) => tenantApi().POST(url, { body: { email, password } });

describe('registration and login', () => {
  it('POST /auth/email creates the user (201, no hash), and both login routes answer a pair', async () => {
    const res = await register('Reg@Example.com', 'correct horse battery', 'Reg User');
    expect(res.response.status).toBe(201);
    expect(res.data).toMatchObject({ email: 'reg@example.com', fullName: 'Reg User', emailVerified: false, role: 'user' });
    expect(JSON.stringify(res.data)).not.toMatch(/argon2|password/i);

    for (const url of ['/auth/email/login', '/auth/login'] as const) {
      const pair = await login(url, 'reg@example.com', 'correct horse battery');
      expect(pair.response.status).toBe(201);
      expect(pair.data).toMatchObject({
        accessToken: expect.stringMatching(/^ey/),
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        tokenType: 'Bearer',
        expiresIn: 900,
      });
      const { accessToken } = pair.data as { accessToken: string };
      const me = await h.api(h.bearerHeaders(accessToken)).GET('/users/me');
      expect(me.data).toMatchObject({ email: 'reg@example.com' });
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
    const res = await h.api(h.keyHeaders()).POST('/auth/users/{userId}/token', { params: { path: { userId } } });
    expect(res.response.status).toBe(201);
    const me = await h.api(h.bearerHeaders(res.data!.accessToken)).GET('/users/me');
    expect(me.data).toMatchObject({ id: userId, email: 'minted@example.com' });
  });
});

describe('JWKS', () => {
  it('is public, outside tenancy and cacheable', async () => {
    const res = await h.api().GET('/.well-known/jwks.json');
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('cache-control')).toContain('max-age');
    expect(res.data!.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String), x: expect.any(String) });
  });
});
