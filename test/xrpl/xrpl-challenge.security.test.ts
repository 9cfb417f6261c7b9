import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createXrplHarness, signMessage, userWithToken } from './xrpl.fixture.js';

let h: Harness;
let headers: Record<string, string>;
beforeAll(async () => {
  h = await createXrplHarness();
  ({ headers } = await userWithToken(h));
});
afterAll(async () => h.close());

const challenge = async (query = '') => {
  const res = await h.inject({ method: 'GET', url: `/non-custodian-xrpl/challenge${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { challenge: string; message: string; address: string | null };
};
const registerCold = (wallet: Wallet, issued: { challenge: string; message: string }) =>
  h.inject({
    method: 'POST',
    url: '/non-custodian-xrpl/wallet',
    headers,
    payload: { address: wallet.classicAddress, publicKey: wallet.publicKey, signature: signMessage(wallet, issued.message), challenge: issued.challenge },
  });

describe('GET /non-custodian-xrpl/challenge: a user never signs a placeholder', () => {
  it('?address= binds the challenge: the message names the account, and only that account registers with it', async () => {
    const cold = Wallet.generate();
    const issued = await challenge(`?address=${cold.classicAddress}`);
    expect(issued.address).toBe(cold.classicAddress);
    expect(issued.message).toContain(`Address: ${cold.classicAddress}\n`);
    expect(issued.message).not.toContain('the account you register');
    // Another account, signing the same text with its own key, cannot use it.
    expectError(await registerCold(Wallet.generate(), issued), 400, 'CHALLENGE_MISMATCH');
    const created = await registerCold(cold, issued);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ address: cold.classicAddress });
  });

  it('without an address (the spec call) the message names no account and says plainly what the signature proves', async () => {
    const issued = await challenge();
    expect(issued.address).toBeNull();
    expect(issued.message).not.toContain('the account you register');
    expect(issued.message).toContain('Address: none (this challenge names no account).');
    expect(issued.message).toMatch(/proves only that you hold the key that made it/);
    // It still registers the account the key controls, once.
    const cold = Wallet.generate();
    expect((await registerCold(cold, issued)).statusCode).toBe(201);
    expectError(await registerCold(Wallet.generate(), issued), 400, 'CHALLENGE_USED');
  });

  it('an address with a wrong checksum is 400 ADDRESS_INVALID', async () => {
    const address = Wallet.generate().classicAddress;
    const bad = address.slice(0, -1) + (address.endsWith('a') ? 'b' : 'a');
    expectError(await h.inject({ method: 'GET', url: `/non-custodian-xrpl/challenge?address=${bad}`, headers }), 400, 'ADDRESS_INVALID');
  });
});
