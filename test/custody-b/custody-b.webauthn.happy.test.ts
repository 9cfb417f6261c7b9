import { verifyMessage, type Hex } from 'viem';
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
    const api = h.api(headers);
    const reg = (await api.GET('/custody-b/users/challenge')).data!;
    // rp is optional in the document (passed on from the provider's challenge): here it must be present.
    expect(reg.rp?.id).toBe('127.0.0.1');
    const registered = await api.POST('/custody-b/users', { body: { firstFactorCredential: passkey.attest(reg.challenge) } });
    expect(registered.response.status).toBe(201);
    expect(registered.data!.credential.kind).toBe('Fido2');

    const wc = (await api.GET('/custody-b/wallets/challenge')).data!;
    expect(wc.allowCredentials.webauthn).toEqual([{ type: 'public-key', id: passkey.credId }]);
    const wallet = await api.POST('/custody-b/wallets', { body: { signedChallenge: passkey.assert(wc) } });
    expect(wallet.response.status).toBe(201);
    const address = wallet.data!.address as Hex;

    const mc = (await api.POST('/custody-b/message/challenge', { body: { address, message: 'passkey' } })).data!;
    const forged = passkey.assert(mc);
    forged.firstFactor.credentialAssertion.signature = passkey.assert({ ...mc, challenge: 'another' }).firstFactor.credentialAssertion.signature;
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message', headers, payload: { address, message: 'passkey', signedChallenge: forged } }), 401, 'CUSTODY_B_CREDENTIAL_REJECTED');

    const mc2 = (await api.POST('/custody-b/message/challenge', { body: { address, message: 'passkey' } })).data!;
    const signed = await api.POST('/custody-b/message', { body: { address, message: 'passkey', signedChallenge: passkey.assert(mc2) } });
    expect(signed.response.status).toBe(201);
    expect(await verifyMessage({ address, message: 'passkey', signature: signed.data!.signature.encoded as Hex })).toBe(true);
  }, 60_000);
});
