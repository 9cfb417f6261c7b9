import { count, eq, inArray } from 'drizzle-orm';
import { serializeTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { custodyBSandboxOrgs, custodyBSandboxSignatures } from '../../src/sandboxes/custody-b/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createWallet, keyAttestation, newKeyCredential, registeredUser, signChallenge, TYPED_DATA } from '../helpers/custody-b.js';

let h: Harness;
let alice: Awaited<ReturnType<typeof registeredUser>>;
let wallet: Awaited<ReturnType<typeof createWallet>>;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  alice = await registeredUser(h);
  wallet = await createWallet(h, alice);
}, 120_000);
afterAll(async () => h?.close());

// This tenant's organisation's signatures only: other files sign in the same sandbox tables on PostgreSQL.
const signatures = async () => {
  const org = h.container.db.select({ id: custodyBSandboxOrgs.orgId }).from(custodyBSandboxOrgs).where(eq(custodyBSandboxOrgs.tenantId, h.tenant.tenantId));
  return (await h.container.db.select({ n: count() }).from(custodyBSandboxSignatures).where(inArray(custodyBSandboxSignatures.orgId, org)))[0]!.n;
};
const messageChallenge = async (message: string, user = alice) =>
  (await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers: user.headers, payload: { address: wallet.address, message } })).json();
const signMessage = (payload: Record<string, unknown>, headers = alice.headers) => h.inject({ method: 'POST', url: '/custody-b/message', headers, payload });

describe('registration errors', () => {
  it('409 when registering twice, at the challenge and at completion', async () => {
    expectError(await h.inject({ method: 'GET', url: '/custody-b/users/challenge', headers: alice.headers }), 409, 'CUSTODY_B_USER_ALREADY_REGISTERED');
    const res = await h.inject({ method: 'POST', url: '/custody-b/users', headers: alice.headers, payload: { firstFactorCredential: keyAttestation(newKeyCredential(), 'x') } });
    expectError(res, 409, 'CUSTODY_B_USER_ALREADY_REGISTERED');
  });

  it('400 without an open registration challenge; 401 for an attestation over another challenge or by another key', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const cred = newKeyCredential();
    expectError(await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: keyAttestation(cred, 'abc') } }), 400, 'CUSTODY_B_REGISTRATION_CHALLENGE_MISSING');
    const challenge = (await h.inject({ method: 'GET', url: '/custody-b/users/challenge', headers })).json().challenge;
    expectError(await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: keyAttestation(cred, 'another') } }), 401, 'CUSTODY_B_CREDENTIAL_REJECTED');
    const forged = keyAttestation(cred, challenge);
    const other = keyAttestation(newKeyCredential(), challenge);
    forged.credentialInfo.attestationData = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(forged.credentialInfo.attestationData, 'base64url').toString()), signature: JSON.parse(Buffer.from(other.credentialInfo.attestationData, 'base64url').toString()).signature }),
    ).toString('base64url');
    expectError(await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: forged } }), 401, 'CUSTODY_B_CREDENTIAL_REJECTED');
    // The right attestation still registers (the challenge was not spent by the refusals).
    expect((await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: keyAttestation(cred, challenge) } })).statusCode).toBe(201);
  });

  it('404 for the other routes before registration', async () => {
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    expectError(await h.inject({ method: 'GET', url: '/custody-b/users/auth-token', headers }), 404, 'CUSTODY_B_USER_NOT_REGISTERED');
    expectError(await h.inject({ method: 'GET', url: '/custody-b/wallets/challenge', headers }), 404, 'CUSTODY_B_USER_NOT_REGISTERED');
    expect((await h.inject({ method: 'GET', url: '/custody-b/wallets', headers })).json()).toEqual({ total: 0, data: [] });
  });
});

describe('user-action challenges', () => {
  it('a challenge for one body cannot complete another (400), and nothing is signed', async () => {
    const before = await signatures();
    const challenge = await messageChallenge('pay 1');
    expectError(await signMessage({ address: wallet.address, message: 'pay 1000', signedChallenge: signChallenge(alice.cred, challenge) }), 400, 'CHALLENGE_MISMATCH');
    const typed = await h.inject({ method: 'POST', url: '/custody-b/message/eip712/sign', headers: alice.headers, payload: { address: wallet.address, typedData: TYPED_DATA, signedChallenge: signChallenge(alice.cred, challenge) } });
    expectError(typed, 400, 'CHALLENGE_MISMATCH');
    expect(await signatures()).toBe(before);
  });

  it('a challenge is single use (400 on replay)', async () => {
    const challenge = await messageChallenge('once');
    const signed = signChallenge(alice.cred, challenge);
    expect((await signMessage({ address: wallet.address, message: 'once', signedChallenge: signed })).statusCode).toBe(201);
    const before = await signatures();
    expectError(await signMessage({ address: wallet.address, message: 'once', signedChallenge: signed }), 400, 'CHALLENGE_USED');
    expect(await signatures()).toBe(before);
  });

  it("another user's challenge is refused (400), even with the right signature", async () => {
    const bob = await registeredUser(h);
    const challenge = await messageChallenge('mine');
    const before = await signatures();
    expectError(await signMessage({ address: wallet.address, message: 'mine', signedChallenge: signChallenge(alice.cred, challenge) }, bob.headers), 404, 'WALLET_NOT_FOUND');
    const bobWallet = await createWallet(h, bob);
    const res = await h.inject({ method: 'POST', url: '/custody-b/message', headers: bob.headers, payload: { address: bobWallet.address, message: 'mine', signedChallenge: signChallenge(bob.cred, challenge) } });
    expectError(res, 400, 'CHALLENGE_UNKNOWN');
    expect(await signatures()).toBe(before);
  });

  it('an expired challenge is refused (400)', async () => {
    const challenge = await messageChallenge('late');
    h.clock.advance(5 * 60_000 + 1);
    const before = await signatures();
    expectError(await signMessage({ address: wallet.address, message: 'late', signedChallenge: signChallenge(alice.cred, challenge) }), 400, 'CHALLENGE_EXPIRED');
    expect(await signatures()).toBe(before);
  });

  it('a wrong credential is refused (401), and nothing is signed', async () => {
    const challenge = await messageChallenge('who');
    const before = await signatures();
    const intruder = { ...newKeyCredential(), credId: alice.cred.credId };
    expectError(await signMessage({ address: wallet.address, message: 'who', signedChallenge: signChallenge(intruder, challenge) }), 401, 'CUSTODY_B_CREDENTIAL_REJECTED');
    expect(await signatures()).toBe(before);
  });

  it('unknown challenge identifier: 400', async () => {
    const res = await signMessage({ address: wallet.address, message: 'x', signedChallenge: signChallenge(alice.cred, { challenge: 'abc', challengeIdentifier: 'nope' }) });
    expectError(res, 400, 'CHALLENGE_UNKNOWN');
  });
});

describe('input errors', () => {
  it('400 for an unknown network, bad typed data, a signed or malformed transaction; 404 for an address not the caller’s', async () => {
    expectError(await h.inject({ method: 'GET', url: '/custody-b/wallets/challenge?network=Dogecoin', headers: alice.headers }), 400, 'NETWORK_INVALID');
    // One wallet per network: asking again for the default network is 409, at the challenge and at creation.
    expectError(await h.inject({ method: 'GET', url: '/custody-b/wallets/challenge', headers: alice.headers }), 409, 'WALLET_EXISTS');
    const other = (await h.inject({ method: 'GET', url: '/custody-b/wallets/challenge?network=Polygon', headers: alice.headers })).json();
    const again = await h.inject({ method: 'POST', url: '/custody-b/wallets', headers: alice.headers, payload: { network: 'EthereumSepolia', signedChallenge: signChallenge(alice.cred, other) } });
    expectError(again, 409, 'WALLET_EXISTS');
    const badTyped = { ...TYPED_DATA, primaryType: 'Person' };
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message/eip712/challenge', headers: alice.headers, payload: { address: wallet.address, typedData: badTyped } }), 400, 'CUSTODY_B_TYPED_DATA_INVALID');
    const wrongValue = { ...TYPED_DATA, message: { ...TYPED_DATA.message, from: { name: 'Ada', wallet: 'not an address' } } };
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message/eip712/challenge', headers: alice.headers, payload: { address: wallet.address, typedData: wrongValue } }), 400, 'CUSTODY_B_TYPED_DATA_INVALID');
    const url = `/custody-b/raw-transaction/challenge?address=${wallet.address}`;
    expectError(await h.inject({ method: 'POST', url, headers: alice.headers, payload: { transaction: '0x1234' } }), 400, 'TRANSACTION_INVALID');
    const stranger = `0x${'12'.repeat(20)}` as const;
    expectError(await h.inject({ method: 'POST', url: `/custody-b/raw-transaction/challenge?address=${stranger}`, headers: alice.headers, payload: { transaction: serializeTransaction({ type: 'eip1559', chainId: 31337, nonce: 0, to: stranger, value: 1n, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }) } }), 404, 'WALLET_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers: alice.headers, payload: { address: stranger, message: 'x' } }), 404, 'WALLET_NOT_FOUND');
  });
});
