import type { Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';
import { statementsDuring } from '../helpers/statements.js';
import { getChallenge, messageFor, postEoa, signIn, walletsOf } from './siwe.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const newKey = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

async function userWithToken() {
  const userId = await h.createUser();
  return { userId, token: await h.tokenFor(userId) };
}

/** Nothing about the user changed: no wallet, no profile address, no event. */
async function expectNothingStored(userId: string) {
  const list = await h.inject({ method: 'GET', url: `/evm-eoas?userId=${userId}`, headers: h.keyHeaders() });
  expect(list.json()).toEqual({ total: 0, data: [] });
  const profile = await h.inject({ method: 'GET', url: `/users/${userId}`, headers: h.keyHeaders() });
  expect(profile.json()).toMatchObject({ evmEoa: null, walletAddresses: { evm: null } });
  expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.userId === userId)).toHaveLength(0);
}

/** One failure case: a message built from a fresh challenge with `overrides`, signed by a fresh key. */
async function failWith(code: string, overrides: Parameters<typeof messageFor>[2], prepare?: () => void) {
  const { userId, token } = await userWithToken();
  const account = newKey();
  const challenge = await getChallenge(h, token);
  const message = messageFor(challenge, account.address, overrides);
  const signature = await account.signMessage({ message });
  prepare?.();
  const res = await postEoa(h, token, { message, signature });
  expectError(res, 400, code);
  await expectNothingStored(userId);
  return { userId, token, account, challenge };
}

describe('POST /evm-eoas: each failure is a 400 with its own code and changes nothing', () => {
  it('SIWE_MESSAGE_INVALID: not an EIP-4361 message', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const message = 'Please sign this to log in';
    expectError(await postEoa(h, token, { message, signature: await account.signMessage({ message }) }), 400, 'SIWE_MESSAGE_INVALID');
    await expectNothingStored(userId);
  });

  it('CHALLENGE_UNKNOWN: a nonce this service never issued', async () => {
    await failWith('CHALLENGE_UNKNOWN', { nonce: 'f00df00df00df00df00df00df00df00d' });
  });

  it('CHALLENGE_USED: a replay of a message that registered', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const challenge = await getChallenge(h, token);
    const message = messageFor(challenge, account.address);
    const signature = await account.signMessage({ message });
    expect((await postEoa(h, token, { message, signature })).statusCode).toBe(201);
    expectError(await postEoa(h, token, { message, signature }), 400, 'CHALLENGE_USED');
    expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.userId === userId)).toHaveLength(1);
  });

  it('CHALLENGE_USED: of five concurrent uses of one signed message, one registers', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const message = messageFor(await getChallenge(h, token), account.address);
    const signature = await account.signMessage({ message });
    const results = await Promise.all(Array.from({ length: 5 }, () => postEoa(h, token, { message, signature })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json().code).toBe('CHALLENGE_USED');
    expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.userId === userId)).toHaveLength(1);
  });

  it("CHALLENGE_MISMATCH: another user's nonce (which stays usable by its owner)", async () => {
    const owner = await userWithToken();
    const thief = await userWithToken();
    const challenge = await getChallenge(h, owner.token);
    const thiefKey = newKey();
    const stolen = messageFor(challenge, thiefKey.address);
    expectError(await postEoa(h, thief.token, { message: stolen, signature: await thiefKey.signMessage({ message: stolen }) }), 400, 'CHALLENGE_MISMATCH');
    await expectNothingStored(thief.userId);
    const ownerKey = newKey();
    const message = messageFor(challenge, ownerKey.address);
    expect((await postEoa(h, owner.token, { message, signature: await ownerKey.signMessage({ message }) })).statusCode).toBe(201);
  });

  it('CHALLENGE_UNKNOWN: a nonce of another tenant', async () => {
    const other = await h.newTenant();
    const foreignUser = await h.createUser(other);
    const res = await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(await h.tokenFor(foreignUser, other), other) });
    expect(res.statusCode).toBe(200);
    await failWith('CHALLENGE_UNKNOWN', { nonce: res.json().nonce });
  });

  it('SIWE_MESSAGE_EXPIRED: past its expirationTime', async () => {
    await failWith('SIWE_MESSAGE_EXPIRED', {}, () => h.clock.advance(10 * 60_000 + 1));
  });

  it('CHALLENGE_EXPIRED: a message without expirationTime, after the nonce lapsed', async () => {
    await failWith('CHALLENGE_EXPIRED', { expirationTime: undefined }, () => h.clock.advance(10 * 60_000 + 1));
  });

  it('a nonce expired over a day ago is deleted at the user\'s next challenge (CHALLENGE_UNKNOWN); one expired more recently is kept (CHALLENGE_EXPIRED)', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const signed = async (challenge: Awaited<ReturnType<typeof getChallenge>>) => {
      const message = messageFor(challenge, account.address, { expirationTime: undefined });
      return { message, signature: await account.signMessage({ message }) };
    };
    const old = await signed(await getChallenge(h, token));
    h.clock.advance(24 * 3600_000);
    const recent = await signed(await getChallenge(h, await h.tokenFor(userId)));
    // The first nonce expired 10 minutes after it was issued: now a day and a millisecond ago.
    h.clock.advance(10 * 60_000 + 1);
    const fresh = await h.tokenFor(userId);
    await getChallenge(h, fresh);
    expectError(await postEoa(h, fresh, old), 400, 'CHALLENGE_UNKNOWN');
    expectError(await postEoa(h, fresh, recent), 400, 'CHALLENGE_EXPIRED');
    await expectNothingStored(userId);
  });

  it('SIWE_DOMAIN_MISMATCH: a message for another domain', async () => {
    await failWith('SIWE_DOMAIN_MISMATCH', { domain: 'phishing.example' });
  });

  it('SIWE_URI_MISMATCH: a message for another URI', async () => {
    await failWith('SIWE_URI_MISMATCH', { uri: 'https://phishing.example/login' });
  });

  it('SIWE_CHAIN_MISMATCH: a message for another chain id', async () => {
    await failWith('SIWE_CHAIN_MISMATCH', { chainId: 1 });
  });

  it('SIWE_MESSAGE_NOT_YET_VALID: notBefore in the future', async () => {
    await failWith('SIWE_MESSAGE_NOT_YET_VALID', { notBefore: new Date(h.clock.now().getTime() + 60_000) });
  });

  it('SIGNATURE_INVALID: signed by another key, or over another message, or random bytes', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const challenge = await getChallenge(h, token);
    const message = messageFor(challenge, account.address);
    const attempts: Hex[] = [
      await newKey().signMessage({ message }),
      await account.signMessage({ message: message + ' ' }),
      `0x${'11'.repeat(32)}${'22'.repeat(32)}1b`,
      `0x${'ab'.repeat(100)}`,
    ];
    for (const signature of attempts) expectError(await postEoa(h, token, { message, signature }), 400, 'SIGNATURE_INVALID');
    await expectNothingStored(userId);
    // The nonce was not spent by the failures.
    expect((await postEoa(h, token, { message, signature: await account.signMessage({ message }) })).statusCode).toBe(201);
  });

  it('SIWE_SIGNATURE_MALLEATED: the high-s twin of a valid signature', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    const challenge = await getChallenge(h, token);
    const message = messageFor(challenge, account.address);
    const signature = await account.signMessage({ message });
    const r = signature.slice(2, 66);
    const s = BigInt('0x' + signature.slice(66, 130));
    const v = parseInt(signature.slice(130, 132), 16);
    const twin = `0x${r}${(N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    expectError(await postEoa(h, token, { message, signature: twin }), 400, 'SIWE_SIGNATURE_MALLEATED');
    await expectNothingStored(userId);
    expect((await postEoa(h, token, { message, signature })).statusCode).toBe(201);
  });

  it('400 VALIDATION_FAILED for malformed bodies', async () => {
    const { userId, token } = await userWithToken();
    for (const payload of [
      {},
      { message: 'x' },
      { message: 'x', signature: 'not-hex' },
      { message: 'x', signature: '0x123' },
      { message: 'x', signature: '0x' + 'ab'.repeat(65), extra: true },
      { message: 'x'.repeat(5000), signature: '0x' + 'ab'.repeat(65) },
    ]) {
      expectError(await postEoa(h, token, payload), 400, 'VALIDATION_FAILED');
    }
    // JSON bodies are never coerced: a number where a string belongs is a validation error.
    expectError(await postEoa(h, token, { message: 42, signature: '0x' + 'ab'.repeat(65) }), 400, 'VALIDATION_FAILED');
    const malformedJson = await h.inject({ method: 'POST', url: '/evm-eoas', headers: { ...h.bearerHeaders(token), 'content-type': 'application/json' }, payload: '{"message":' });
    expectError(malformedJson, 400, 'MALFORMED_JSON');
    await expectNothingStored(userId);
  });
});

describe('POST /evm-eoas: the registry rules', () => {
  it('404 USER_NOT_FOUND for a token of a user that does not exist; the nonce stays unused and no wallet is stored', async () => {
    const missing = '0190a7a0-0000-7000-8000-00000000beef';
    const token = await h.tokenFor(missing);
    const account = newKey();
    const challenge = await getChallenge(h, token);
    const message = messageFor(challenge, account.address);
    const signature = await account.signMessage({ message });
    expectError(await postEoa(h, token, { message, signature }), 404, 'USER_NOT_FOUND');
    // The transaction rolled back: the same message is refused for the user again, not as a used challenge.
    expectError(await postEoa(h, token, { message, signature }), 404, 'USER_NOT_FOUND');
    const stored = await h.database.db.execute(`select count(*)::int as n from wallets where address_key = '${account.address.toLowerCase()}'` as never);
    expect(JSON.stringify(stored)).toContain('"n":0');
  });

  it('409 WALLET_ADDRESS_TAKEN for an address another user registered; the loser keeps its nonce', async () => {
    const first = await userWithToken();
    const second = await userWithToken();
    const shared = newKey();
    expect((await signIn(h, first.token, shared)).statusCode).toBe(201);
    const challenge = await getChallenge(h, second.token);
    const message = messageFor(challenge, shared.address);
    expectError(await postEoa(h, second.token, { message, signature: await shared.signMessage({ message }) }), 409, 'WALLET_ADDRESS_TAKEN');
    await expectNothingStored(second.userId);
    const own = newKey();
    const next = messageFor(challenge, own.address);
    expect((await postEoa(h, second.token, { message: next, signature: await own.signMessage({ message: next }) })).statusCode).toBe(201);
  });

  it('409 WALLET_KIND_CONFLICT for an address the same user holds as another kind', async () => {
    const { userId, token } = await userWithToken();
    const account = newKey();
    await walletsOf(h).wallets.register(h.tenant.tenantId, userId, { kind: 'evm-vault', chain: 'evm', chainId: 31337, address: account.address });
    expectError(await signIn(h, token, account), 409, 'WALLET_KIND_CONFLICT');
  });
});

describe('GET /evm-eoas and the challenge: errors', () => {
  it('400 USER_ID_REQUIRED for an API key without userId; 404 for an unknown user', async () => {
    expectError(await h.inject({ method: 'GET', url: '/evm-eoas', headers: h.keyHeaders() }), 400, 'USER_ID_REQUIRED');
    expectError(
      await h.inject({ method: 'GET', url: '/evm-eoas?userId=0190a7a0-0000-7000-8000-000000000000', headers: h.keyHeaders() }),
      404,
      'USER_NOT_FOUND',
    );
  });

  it('an empty list and an unknown user are each answered from one statement, the page with the user\'s existence', async () => {
    const { userId, token } = await userWithToken();
    await h.inject({ method: 'GET', url: '/evm-eoas', headers: h.bearerHeaders(token) }); // the session and tenant reads, cached
    const walletReads = (statements: string[]) => statements.filter((s) => /\b(wallets|users)\b/.test(s) && !/\bsessions\b/.test(s));
    let res!: Awaited<ReturnType<typeof h.inject>>;
    let seen = await statementsDuring(h.database, async () => {
      res = await h.inject({ method: 'GET', url: '/evm-eoas', headers: h.bearerHeaders(token) });
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ total: 0, data: [] });
    expect(walletReads(seen)).toHaveLength(1);
    seen = await statementsDuring(h.database, async () => {
      res = await h.inject({ method: 'GET', url: `/evm-eoas?userId=${userId}`, headers: h.keyHeaders() });
    });
    expect(res.json()).toEqual({ total: 0, data: [] });
    seen = await statementsDuring(h.database, async () => {
      res = await h.inject({ method: 'GET', url: '/evm-eoas?userId=0190a7a0-0000-7000-8000-00000000abcd', headers: h.keyHeaders() });
    });
    expectError(res, 404, 'USER_NOT_FOUND');
    expect(walletReads(seen)).toHaveLength(1);
  });

  it("404 when a plain user asks for another user's EOAs", async () => {
    const a = await userWithToken();
    const b = await userWithToken();
    expectError(await h.inject({ method: 'GET', url: `/evm-eoas?userId=${b.userId}`, headers: h.bearerHeaders(a.token) }), 404, 'USER_NOT_FOUND');
  });

  it('429 RATE_LIMITED after 30 challenges of one user in 10 minutes', async () => {
    const { token } = await userWithToken();
    for (let i = 0; i < 30; i++) expect((await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(token) })).statusCode).toBe(200);
    const res = await h.inject({ method: 'GET', url: '/evm-eoas/challenge', headers: h.bearerHeaders(token) });
    expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('400 for malformed queries', async () => {
    const { token } = await userWithToken();
    const headers = h.bearerHeaders(token);
    for (const url of ['/evm-eoas?limit=101', '/evm-eoas?limit=0', '/evm-eoas?offset=-1', '/evm-eoas?userId=nope', '/evm-eoas?foo=1']) {
      expectError(await h.inject({ method: 'GET', url, headers }), 400, 'VALIDATION_FAILED');
    }
    for (const url of ['/evm-eoas/challenge?address=0x123', '/evm-eoas/challenge?address=vitalik.eth', '/evm-eoas/challenge?foo=1']) {
      expectError(await h.inject({ method: 'GET', url, headers }), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('an unreachable chain', () => {
  let down: Harness;
  beforeAll(async () => {
    down = await createHarness({ env: { EVM_RPC_URL: 'http://127.0.0.1:9/', EVM_CHAIN_ID: '31337' } });
  });
  afterAll(async () => down.close());

  it('POST /evm-eoas is 503 CHAIN_UNAVAILABLE and stores nothing; GET /ready is 503', async () => {
    const userId = await down.createUser();
    const token = await down.tokenFor(userId);
    const account = newKey();
    const res = await signIn(down, token, account);
    expectError(res, 503, 'CHAIN_UNAVAILABLE');
    const list = await down.inject({ method: 'GET', url: '/evm-eoas', headers: down.bearerHeaders(token) });
    expect(list.json()).toEqual({ total: 0, data: [] });
    const ready = await down.inject({ method: 'GET', url: '/ready' });
    expectError(ready, 503, 'NOT_READY');
  });
});
