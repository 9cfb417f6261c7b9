import { verifyMessage } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { newPasskey } from '../helpers/custody-b.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
}, 120_000);
afterAll(async () => h?.close());

describe('custody-b with a WebAuthn passkey', () => {
  it('registers a passkey, creates a wallet and signs with assertions; a forged assertion is 401', async () => {
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    const passkey = await newPasskey(h.baseUrl);
    const reg = (await h.inject({ method: 'GET', url: '/custody-b/users/challenge', headers })).json();
    expect(reg.rp.id).toBe('127.0.0.1');
    const registered = await h.inject({ method: 'POST', url: '/custody-b/users', headers, payload: { firstFactorCredential: passkey.attest(reg.challenge) } });
    expect(registered.statusCode).toBe(201);
    expect(registered.json().credential.kind).toBe('Fido2');

    const wc = (await h.inject({ method: 'GET', url: '/custody-b/wallets/challenge', headers })).json();
    expect(wc.allowCredentials.webauthn).toEqual([{ type: 'public-key', id: passkey.credId }]);
    const wallet = await h.inject({ method: 'POST', url: '/custody-b/wallets', headers, payload: { signedChallenge: passkey.assert(wc) } });
    expect(wallet.statusCode).toBe(201);
    const { address } = wallet.json();

    const mc = (await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers, payload: { address, message: 'passkey' } })).json();
    const forged = passkey.assert(mc);
    forged.firstFactor.credentialAssertion.signature = passkey.assert({ ...mc, challenge: 'another' }).firstFactor.credentialAssertion.signature;
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message', headers, payload: { address, message: 'passkey', signedChallenge: forged } }), 401, 'CUSTODY_B_CREDENTIAL_REJECTED');

    const mc2 = (await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers, payload: { address, message: 'passkey' } })).json();
    const signed = await h.inject({ method: 'POST', url: '/custody-b/message', headers, payload: { address, message: 'passkey', signedChallenge: passkey.assert(mc2) } });
    expect(signed.statusCode).toBe(201);
    expect(await verifyMessage({ address, message: 'passkey', signature: signed.json().signature.encoded })).toBe(true);
  }, 60_000);
});
