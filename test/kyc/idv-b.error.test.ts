import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decideInSandbox, http, sendWebhook } from '../helpers/kyc.js';
import { expectError } from '../helpers/security.js';
import { readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

async function evmChallenge() {
  const userId = await h.createUser();
  const account = privateKeyToAccount(generatePrivateKey());
  const res = await http(h, 'POST', '/kyc/idv-b/web3-challenge', h.bearerHeaders(await h.tokenFor(userId)), { address: account.address, chain: 'evm' });
  expect(res.status, res.text).toBe(201);
  const sessionId = (res.json.sessionUrl as string).split('/').pop()!;
  return { account, userId, sessionId, ...(res.json as { kycId: string; message: string; sessionUrl: string }) };
}

describe('idv-b errors', () => {
  it('400 for an invalid address or chain', async () => {
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    for (const payload of [
      { address: '0x12345678901234567890123456789012345678zz', chain: 'evm' },
      { address: 'rNotAnXrplAddressAtAll0000000000', chain: 'xrpl' },
      { address: '0x52908400098527886e0f7030069857d2e4169ee7', chain: 'xrpl' },
    ]) {
      expectError(await h.inject({ method: 'POST', url: '/kyc/idv-b/web3-challenge', headers, payload }), 400, 'ADDRESS_INVALID');
    }
    for (const payload of [{ address: '0x52908400098527886e0f7030069857d2e4169ee7', chain: 'btc' }, { chain: 'evm' }, {}]) {
      expectError(await h.inject({ method: 'POST', url: '/kyc/idv-b/web3-challenge', headers, payload }), 400, 'VALIDATION_FAILED');
    }
  });

  it('the sandbox refuses a signature by another wallet; the record does not move', async () => {
    const { kycId, message, sessionUrl } = await evmChallenge();
    const other = privateKeyToAccount(generatePrivateKey());
    const res = await decideInSandbox(sessionUrl, { decision: 'approved', signature: await other.signMessage({ message }) });
    expect(res.status).toBe(400);
    expect(res.html).toContain('does not sign the message');
    expect((await attempt(kycId)).status).toBe('created');
  });

  it('a signed result claiming approval with a forged wallet signature is ignored (Bastion checks the wallet itself)', async () => {
    const { kycId, sessionId, message, account } = await evmChallenge();
    const forger = privateKeyToAccount(generatePrivateKey());
    const body = {
      eventId: crypto.randomUUID(),
      sessionId,
      reference: kycId,
      status: 'approved',
      wallet: { chain: 'evm', address: account.address, signature: await forger.signMessage({ message }) },
    };
    const url = `/kyc/callback/idv-b?tenantId=${h.tenant.tenantId}`;
    const res = await sendWebhook(h, url, body, { provider: 'idv-b' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ applied: false, outcome: 'ignored: wallet signature invalid' });
    const noWallet = await sendWebhook(h, url, { ...body, eventId: crypto.randomUUID(), wallet: undefined }, { provider: 'idv-b' });
    expect(noWallet.json()).toMatchObject({ applied: false, outcome: 'ignored: wallet signature invalid' });
    // A signature of the challenge by the right wallet, but naming another address, is refused as well.
    const otherAddress = { ...body, eventId: crypto.randomUUID(), wallet: { chain: 'evm', address: forger.address, signature: await forger.signMessage({ message }) } };
    expect((await sendWebhook(h, url, otherAddress, { provider: 'idv-b' })).json()).toMatchObject({ applied: false });
    expect((await attempt(kycId)).status).toBe('created');
    // The genuine signature is accepted.
    const genuine = { ...body, eventId: crypto.randomUUID(), wallet: { chain: 'evm', address: account.address, signature: await account.signMessage({ message }) } };
    expect((await sendWebhook(h, url, genuine, { provider: 'idv-b' })).json()).toMatchObject({ applied: true, status: 'approved' });
  });

  it('a malformed reference is 400; an unknown one is acknowledged and ignored', async () => {
    const url = `/kyc/callback/idv-b?tenantId=${h.tenant.tenantId}`;
    await evmChallenge(); // the tenant has an idv-b secret
    const bad = await sendWebhook(h, url, { eventId: 'e', sessionId: 's', reference: 'not-a-uuid', status: 'approved' }, { provider: 'idv-b' });
    expectError(bad, 400, 'WEBHOOK_MALFORMED');
    const unknown = await sendWebhook(h, url, { eventId: 'e', sessionId: 's', reference: crypto.randomUUID(), status: 'approved' }, { provider: 'idv-b' });
    expect(unknown.json()).toMatchObject({ applied: false, outcome: 'ignored: unknown session' });
    const invalid = await sendWebhook(h, url, { eventId: 'e', sessionId: 's', reference: crypto.randomUUID(), status: 'great' }, { provider: 'idv-b' });
    expectError(invalid, 400, 'VALIDATION_FAILED');
  });
});
