import { sign } from 'ripple-keypairs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decideInSandbox, http } from '../helpers/kyc.js';
import { readUser, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

describe('idv-b wallet verification over real HTTP against the sandbox', () => {
  it('EVM: an EIP-4361 challenge, signed by the wallet, approved on the sandbox page', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await http(h, 'POST', '/kyc/idv-b/web3-challenge', headers, { address: account.address.toLowerCase(), chain: 'evm', chainId: 137 });
    expect(res.status, res.text).toBe(201);
    const challenge = res.json;
    expect(challenge).toMatchObject({ provider: 'idv-b', status: 'created', chain: 'evm', address: account.address });
    expect(challenge.sessionUrl).toMatch(new RegExp(`^${h.baseUrl}/sandbox/idv-b/s/`));
    const siwe = parseSiweMessage(challenge.message);
    expect(siwe).toMatchObject({ address: account.address, chainId: 137, domain: new URL(h.baseUrl).host, nonce: challenge.nonce, version: '1', uri: h.baseUrl });
    expect(validateSiweMessage({ message: siwe, address: account.address, domain: new URL(h.baseUrl).host, nonce: challenge.nonce, time: h.clock.now() })).toBe(true);

    const signature = await account.signMessage({ message: challenge.message });
    const done = await decideInSandbox(challenge.sessionUrl, { decision: 'approved', signature, country: 'US' });
    expect(done.status).toBe(200);
    expect(done.html).toMatch(/callback\/idv-b\?tenantId=[0-9a-f-]+: HTTP 201/);
    const detail = await attempt(challenge.kycId);
    expect(detail).toMatchObject({ status: 'approved', walletVerified: true, walletAddress: account.address, walletChain: 'evm', country: 'US', flow: 'web3' });
    expect(detail.history.at(-1)).toMatchObject({ from: 'created', to: 'approved', actor: { type: 'provider', id: 'idv-b' } });

    const attempts = await http(h, 'GET', '/kyc/attempts', headers);
    expect(attempts.json.data[0]).toMatchObject({ kycId: challenge.kycId, status: 'approved' });
    const proof = await http(h, 'GET', '/kyc/identity/proof?path=kyc.walletAddress', headers);
    expect(proof.json.value).toBe(account.address);
  });

  it('XRPL: the challenge signed with the account key (ripple-keypairs) and its public key', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const wallet = Wallet.generate();
    const res = await http(h, 'POST', '/kyc/idv-b/web3-challenge', headers, { address: wallet.classicAddress, chain: 'xrpl' });
    expect(res.status, res.text).toBe(201);
    const challenge = res.json;
    expect(challenge.message).toContain(wallet.classicAddress);
    expect(challenge.message).toContain(`Nonce: ${challenge.nonce}`);
    const signature = sign(Buffer.from(challenge.message, 'utf8').toString('hex').toUpperCase(), wallet.privateKey);
    const done = await decideInSandbox(challenge.sessionUrl, { decision: 'approved', signature, publicKey: wallet.publicKey });
    expect(done.status, done.html).toBe(200);
    expect(await attempt(challenge.kycId)).toMatchObject({ status: 'approved', walletVerified: true, walletAddress: wallet.classicAddress, walletChain: 'xrpl' });
  });

  it('regular (no wallet): a session URL, then a decision from the sandbox', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const res = await http(h, 'POST', '/kyc/idv-b/regular-challenge', headers);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ provider: 'idv-b', status: 'created', sessionUrl: expect.stringContaining('/sandbox/idv-b/s/') });
    const done = await decideInSandbox(res.json.sessionUrl, { decision: 'declined', reason: 'document expired' });
    expect(done.status).toBe(200);
    expect(await attempt(res.json.kycId)).toMatchObject({ status: 'declined', reason: 'document expired', flow: 'regular', walletAddress: null });
    expect((await readUser(h, userId)).kycStatus).toBe('declined');
  });
});
