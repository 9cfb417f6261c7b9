import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEvmAddress } from '../../src/platform/crypto/evm-address.js';
import { createTenantDocument } from '../documents/fixtures.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { flipFirstLetter, getChallenge, messageFor, postEoa, signIn } from './siwe.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const newAccount = () => privateKeyToAccount(generatePrivateKey());

async function userWithToken() {
  const userId = await h.createUser();
  return { userId, token: await h.tokenFor(userId) };
}

describe('the one EVM address rule', () => {
  it('one case or a valid EIP-55 checksum; a wrong checksum is refused, never corrected', () => {
    const { address } = newAccount();
    expect(parseEvmAddress(address)).toBe(address);
    expect(parseEvmAddress(address.toLowerCase())).toBe(address);
    expect(parseEvmAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(address);
    expect(parseEvmAddress(flipFirstLetter(address))).toBeUndefined();
    expect(parseEvmAddress(address.slice(0, 41))).toBeUndefined();
    expect(parseEvmAddress(`0X${address.slice(2)}`)).toBeUndefined();
    // Where the checksummed form is required (a token contract), one case is refused too.
    expect(parseEvmAddress(address, { checksummedOnly: true })).toBe(address);
    expect(parseEvmAddress(address.toLowerCase(), { checksummedOnly: true })).toBeUndefined();
  });
});

describe('a mixed-case address with a wrong checksum is refused on every route', () => {
  it('POST /evm-eoas: a SIWE message naming the address with a wrong checksum is 400 SIWE_MESSAGE_INVALID and stores nothing', async () => {
    const { userId, token } = await userWithToken();
    const account = newAccount();
    const challenge = await getChallenge(h, token);
    // viem refuses to build such a message, so write the typo into a correct one; the key signs it all the same.
    const message = messageFor(challenge, account.address).replace(account.address, flipFirstLetter(account.address));
    expect(message).toContain(flipFirstLetter(account.address));
    const signature = await account.signMessage({ message });
    expectError(await postEoa(h, token, { message, signature }), 400, 'SIWE_MESSAGE_INVALID');
    const list = await h.inject({ method: 'GET', url: `/evm-eoas?userId=${userId}`, headers: h.keyHeaders() });
    expect(list.json()).toEqual({ total: 0, data: [] });
    // The same message with the lower-case form (no checksum to get wrong) registers.
    const lower = await getChallenge(h, token);
    const ok = messageFor(lower, account.address.toLowerCase() as `0x${string}`);
    expect((await postEoa(h, token, { message: ok, signature: await account.signMessage({ message: ok }) })).statusCode).toBe(201);
  });

  it('GET /evm-eoas/challenge?address= is 400 ADDRESS_INVALID for a wrong checksum', async () => {
    const { token } = await userWithToken();
    const { address } = newAccount();
    expectError(await h.inject({ method: 'GET', url: `/evm-eoas/challenge?address=${flipFirstLetter(address)}`, headers: h.bearerHeaders(token) }), 400, 'ADDRESS_INVALID');
    const ok = await h.inject({ method: 'GET', url: `/evm-eoas/challenge?address=${address.toLowerCase()}`, headers: h.bearerHeaders(token) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toContain(address);
  });

  it('GET /tenant-documents/{id}/sign: a wrong checksum is 400 DOCUMENT_ADDRESS_INVALID, not a message for the corrected address', async () => {
    const doc = await createTenantDocument(h);
    const { token } = await userWithToken();
    const { address } = newAccount();
    const res = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}/sign?address=${flipFirstLetter(address)}&chainType=evm`, headers: h.bearerHeaders(token) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toMatch(/ADDRESS_INVALID$/);
  });

  it('GET /users?evmEoa= with a wrong checksum matches no one (the typo is not corrected into a user)', async () => {
    const { userId, token } = await userWithToken();
    const account = newAccount();
    expect((await signIn(h, token, account)).statusCode).toBe(201);
    const right = await h.inject({ method: 'GET', url: `/users?evmEoa=${account.address.toLowerCase()}`, headers: h.keyHeaders() });
    expect(right.json().data.map((u: { id: string }) => u.id)).toEqual([userId]);
    const typo = await h.inject({ method: 'GET', url: `/users?evmEoa=${flipFirstLetter(account.address)}`, headers: h.keyHeaders() });
    expect(typo.statusCode).toBe(200);
    expect(typo.json().data).toEqual([]);
  });
});
