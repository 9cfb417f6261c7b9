import { createServer } from 'node:http';
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
let userId: string;
let sid: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser(undefined, 'tok@example.com');
  // A live session, so a forged token fails for the forged part alone.
  const real = await h.tokenFor(userId);
  sid = JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString()).sid;
});
afterAll(async () => h.close());

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const me = (token: string) => h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) });

function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(h.clock.now().getTime() / 1000);
  return { sub: userId, tid: h.tenant.tenantId, sid, role: 'admin', iss: 'http://bastion.test', aud: 'bastion', iat: now, nbf: now, exp: now + 600, ...overrides };
}

/** Signs with the service's real private key, so only the claim under test is wrong. */
async function signReal(payload: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const { kid, privateKey } = h.container.keys.signingKey();
  return new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt', ...header }).sign(privateKey);
}

describe('access tokens', () => {
  it('a real token works, carries the documented claims and kid, and verifies against the JWKS', async () => {
    const token = await h.tokenFor(userId);
    expect((await me(token)).statusCode).toBe(200);
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
    expect(payload).toMatchObject({ sub: userId, tid: h.tenant.tenantId, sid: expect.any(String), role: 'user', iss: 'http://bastion.test', aud: 'bastion' });
    expect(payload.exp - payload.iat).toBe(900);
    const jwks = (await h.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(header.kid);
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
  });

  it('is rejected after 15 minutes (injected clock)', async () => {
    const token = await h.tokenFor(userId);
    expect((await me(token)).statusCode).toBe(200);
    h.clock.advance(15 * 60_000 + 1000);
    expectError(await me(token), 401, 'TOKEN_INVALID');
  });

  it('rejects a token signed with a key not in the JWKS (even under a known kid)', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const { kid } = h.container.keys.signingKey();
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' }).sign(privateKey);
    expectError(await me(token), 401, 'TOKEN_INVALID');
  });

  it('rejects an unknown kid', async () => {
    expectError(await me(await signReal(claims(), { kid: 'no-such-key' })), 401, 'TOKEN_INVALID');
  });

  it('rejects alg none', async () => {
    const token = `${b64({ alg: 'none', typ: 'at+jwt', kid: h.container.keys.signingKey().kid })}.${b64(claims())}.`;
    expectError(await me(token), 401, 'TOKEN_INVALID');
  });

  it('rejects HS256 signed with the public key', async () => {
    const jwk = h.container.keys.jwks().keys[0]!;
    const header = b64({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid });
    const body = b64(claims());
    for (const secret of [JSON.stringify(jwk), jwk.x, Buffer.from(jwk.x, 'base64url')]) {
      const sig = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
      expectError(await me(`${header}.${body}.${sig}`), 401, 'TOKEN_INVALID');
    }
  });

  it('ignores jku / x5u / jwk headers and never fetches them', async () => {
    let fetched = 0;
    const server = createServer((_req, res) => {
      fetched++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const attacker = generateKeyPairSync('ed25519');
    const attackerJwk = attacker.publicKey.export({ format: 'jwk' });
    for (const extra of [{ jku: `http://127.0.0.1:${port}/jwks` }, { x5u: `http://127.0.0.1:${port}/cert` }, { jwk: attackerJwk }]) {
      const token = await new SignJWT(claims())
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'attacker', ...extra } as never)
        .sign(attacker.privateKey);
      expectError(await me(token), 401, 'TOKEN_INVALID');
    }
    server.close();
    expect(fetched).toBe(0);
  });

  it('rejects a wrong issuer, a wrong audience, an expired token and a future nbf', async () => {
    // Control: the same construction with correct claims is accepted.
    expect((await me(await signReal(claims()))).statusCode).toBe(200);
    const now = Math.floor(h.clock.now().getTime() / 1000);
    for (const bad of [{ iss: 'https://evil.example' }, { aud: 'other-service' }, { exp: now - 1 }, { nbf: now + 60 }]) {
      expectError(await me(await signReal(claims(bad))), 401, 'TOKEN_INVALID');
    }
  });

  it('rejects a token of the wrong type (typ) and a refresh token used as an access token', async () => {
    expectError(await me(await signReal(claims(), { typ: 'JWT' })), 401, 'TOKEN_INVALID');
    const pair = await h.container.sessions.start(h.tenant.tenantId, userId, 'user');
    expectError(await me(pair.refreshToken), 401, 'TOKEN_INVALID');
  });

  it('a token whose session is revoked (logout) is rejected', async () => {
    const token = await h.tokenFor(userId);
    const out = await h.inject({ method: 'POST', url: '/auth/logout', headers: h.bearerHeaders(token) });
    expect(out.statusCode).toBe(201);
    expectError(await me(token), 401, 'TOKEN_INVALID');
  });
});

describe('key rotation', () => {
  it('a new key signs; tokens of the old key verify until they expire; the old key leaves the JWKS later', async () => {
    const before = await h.tokenFor(userId);
    const oldKid = h.container.keys.signingKey().kid;
    const { kid, retired } = await h.container.keys.rotate();
    expect(retired).toContain(oldKid);
    expect(h.container.keys.signingKey().kid).toBe(kid);
    const after = await h.tokenFor(userId);
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
    expect((await me(before)).statusCode).toBe(200);
    expect((await me(after)).statusCode).toBe(200);
    const kids = () => h.container.keys.jwks().keys.map((k) => k.kid);
    expect(kids()).toEqual(expect.arrayContaining([oldKid, kid]));
    h.clock.advance(21 * 60_000);
    expect(kids()).not.toContain(oldKid);
    expect(kids()).toContain(kid);
  });
});
