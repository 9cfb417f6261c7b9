import { sign as signXrpl } from 'ripple-keypairs';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { createTenantDocument } from './fixtures.js';

let h: Harness;
let headers: Record<string, string>;
let userId: string;
let docA: { id: string };
let docB: { id: string };
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
  headers = h.bearerHeaders(await h.tokenFor(userId));
  docA = await createTenantDocument(h, undefined, undefined, 'A');
  docB = await createTenantDocument(h, undefined, undefined, 'B');
});
afterAll(async () => h.close());

async function ask(documentId: string, address: string, chainType = 'evm', as = headers) {
  const res = await h.inject({ method: 'GET', url: `/tenant-documents/${documentId}/sign?address=${address}&chainType=${chainType}`, headers: as });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function expectRefused(res: { statusCode: number; json: () => { code: string } }, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json()).toMatchObject({ statusCode: status, code });
}

const postEvm = (documentId: string, payload: object, as = headers) => h.inject({ method: 'POST', url: `/tenant-documents/${documentId}/sign`, headers: as, payload });

describe('GET /tenant-documents/{id}/sign refusals', () => {
  it('400 for a chainType other than evm or xrpl, or an address not of that chain; 404 for an unknown document', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await expectRefused(await h.inject({ method: 'GET', url: `/tenant-documents/${docA.id}/sign?address=${account.address}&chainType=solana`, headers }), 400, 'ENUM_VALUE_UNKNOWN');
    await expectRefused(await h.inject({ method: 'GET', url: `/tenant-documents/${docA.id}/sign?address=rNotAnAddress&chainType=xrpl`, headers }), 400, 'ADDRESS_INVALID');
    await expectRefused(await h.inject({ method: 'GET', url: `/tenant-documents/${docA.id}/sign?address=${account.address}`, headers }), 400, 'VALIDATION_FAILED');
    await expectRefused(await h.inject({ method: 'GET', url: `/tenant-documents/${crypto.randomUUID()}/sign?address=${account.address}&chainType=evm`, headers }), 404, 'DOCUMENT_NOT_FOUND');
  });
});

describe('POST /tenant-documents/{id}/sign refusals: each is 400 and records nothing', () => {
  it('a signature over another document, another nonce, an expired message, or by another address', async () => {
    const before = (await outbox(h, undefined, 'document.signed')).length;
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());

    // The nonce of document B presented on document A.
    const forB = await ask(docB.id, account.address);
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: forB.nonce, signature: await account.signTypedData(forB.typedData) }), 400, 'CHALLENGE_MISMATCH');

    // A nonce never issued; a message signed for one nonce sent with another.
    const forA = await ask(docA.id, account.address);
    const second = await ask(docA.id, account.address);
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: 'f'.repeat(32), signature: await account.signTypedData(forA.typedData) }), 400, 'CHALLENGE_UNKNOWN');
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: second.nonce, signature: await account.signTypedData(forA.typedData) }), 400, 'SIGNATURE_INVALID');

    // Signed by another key than the address's; the nonce issued for another address.
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: forA.nonce, signature: await other.signTypedData(forA.typedData) }), 400, 'SIGNATURE_INVALID');
    await expectRefused(await postEvm(docA.id, { address: other.address, nonce: forA.nonce, signature: await other.signTypedData(forA.typedData) }), 400, 'CHALLENGE_MISMATCH');

    // Another user presenting this user's nonce: unknown to them.
    const stranger = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: forA.nonce, signature: await account.signTypedData(forA.typedData) }, stranger), 400, 'CHALLENGE_UNKNOWN');

    // Expired: 15 minutes later.
    h.clock.advance(15 * 60_000 + 1);
    headers = h.bearerHeaders(await h.tokenFor(userId)); // the access token lived 15 minutes too
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: forA.nonce, signature: await account.signTypedData(forA.typedData) }), 400, 'CHALLENGE_EXPIRED');

    // A malformed signature.
    const fresh = await ask(docA.id, account.address);
    await expectRefused(await postEvm(docA.id, { address: account.address, nonce: fresh.nonce, signature: '0x1234' }), 400, 'SIGNATURE_INVALID');

    expect((await outbox(h, undefined, 'document.signed')).length).toBe(before);
    const list = await h.inject({ method: 'GET', url: '/signed-documents', headers });
    expect(list.json().total).toBe(0);
  });

  it('a deleted document cannot be signed (404)', async () => {
    const doc = await createTenantDocument(h, undefined, undefined, 'Gone');
    const account = privateKeyToAccount(generatePrivateKey());
    const message = await ask(doc.id, account.address);
    await h.inject({ method: 'DELETE', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders() });
    await expectRefused(await postEvm(doc.id, { address: account.address, nonce: message.nonce, signature: await account.signTypedData(message.typedData) }), 404, 'DOCUMENT_NOT_FOUND');
  });
});

describe('POST /tenant-documents/{id}/sign/xrpl refusals', () => {
  it('a public key that is not the address\'s, a signature by another key, a wrong message', async () => {
    const wallet = Wallet.generate();
    const other = Wallet.generate();
    const message = await ask(docA.id, wallet.classicAddress, 'xrpl');
    const post = (payload: object) => h.inject({ method: 'POST', url: `/tenant-documents/${docA.id}/sign/xrpl`, headers, payload });
    await expectRefused(await post({ address: wallet.classicAddress, nonce: message.nonce, signature: signXrpl(message.messageHex, other.privateKey), publicKey: other.publicKey }), 400, 'SIGNATURE_INVALID');
    await expectRefused(await post({ address: wallet.classicAddress, nonce: message.nonce, signature: signXrpl(message.messageHex, other.privateKey), publicKey: wallet.publicKey }), 400, 'SIGNATURE_INVALID');
    await expectRefused(await post({ address: wallet.classicAddress, nonce: message.nonce, signature: signXrpl('00', wallet.privateKey), publicKey: wallet.publicKey }), 400, 'SIGNATURE_INVALID');
    await expectRefused(await post({ address: other.classicAddress, nonce: message.nonce, signature: signXrpl(message.messageHex, other.privateKey), publicKey: other.publicKey }), 400, 'CHALLENGE_MISMATCH');
    // The right signature still works afterwards: failures do not use the nonce.
    const ok = await post({ address: wallet.classicAddress, nonce: message.nonce, signature: signXrpl(message.messageHex, wallet.privateKey), publicKey: wallet.publicKey });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});
