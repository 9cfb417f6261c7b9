import { createHash } from 'node:crypto';
import { sign as signXrpl, verify as verifyXrplSignature } from 'ripple-keypairs';
import { getAddress, hashMessage, recoverTypedDataAddress, verifyMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { compileWallets } from '../wallets/contracts.js';
import { createTenantDocument, makePdf } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function signer() {
  const userId = await h.createUser();
  return { userId, headers: h.bearerHeaders(await h.tokenFor(userId)) };
}

async function askEvm(headers: Record<string, string>, documentId: string, address: string) {
  const res = await h.inject({ method: 'GET', url: `/tenant-documents/${documentId}/sign?address=${address}&chainType=evm`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('tenant documents', () => {
  it('create (base64), read by a user, patch metadata, list, soft delete (200 with the object)', async () => {
    const pdf = makePdf({ text: 'Terms' });
    const doc = await createTenantDocument(h, undefined, pdf, 'Terms');
    expect(doc).toMatchObject({ title: 'Terms', metadata: { fund: 'I' }, mediaType: 'application/pdf', sha256: createHash('sha256').update(pdf).digest('hex'), signatures: 0, deletedAt: null });
    const user = await signer();
    const read = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}`, headers: user.headers });
    expect(read.statusCode).toBe(200);
    const content = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}/content`, headers: user.headers });
    expect(content.rawPayload.equals(pdf)).toBe(true);

    const patched = await h.inject({ method: 'PATCH', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders(), payload: { title: 'Terms v1', metadata: { fund: 'II' } } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ title: 'Terms v1', metadata: { fund: 'II' }, sha256: doc.sha256 });
    const list = await h.inject({ method: 'GET', url: '/tenant-documents', headers: h.keyHeaders() });
    expect(list.json().data.map((d: { id: string }) => d.id)).toContain(doc.id);

    const deleted = await h.inject({ method: 'DELETE', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders() });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ id: doc.id, deletedAt: expect.any(String) });
    expect((await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders() })).statusCode).toBe(404);
    const after = await h.inject({ method: 'GET', url: '/tenant-documents', headers: h.keyHeaders() });
    expect(after.json().data.map((d: { id: string }) => d.id)).not.toContain(doc.id);
  });
});

describe('signing with an EVM wallet', () => {
  it('EIP-712 by a viem account: 201, the record re-verifies offline; event; a second signature by the same user and address is 409', async () => {
    const doc = await createTenantDocument(h);
    const { userId, headers } = await signer();
    const account = privateKeyToAccount(generatePrivateKey());
    const message = await askEvm(headers, doc.id, account.address.toLowerCase());
    expect(message).toMatchObject({ documentId: doc.id, tenantId: h.tenant.tenantId, chainType: 'evm', address: account.address, documentSha256: doc.sha256, nonce: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(message.typedData).toMatchObject({ domain: { name: 'Bastion Documents', version: '1', chainId: 31337 }, primaryType: 'DocumentSignature', message: { documentId: doc.id, documentSha256: `0x${doc.sha256}`, nonce: message.nonce } });
    expect(new Date(message.expiresAt).getTime() - new Date(message.issuedAt).getTime()).toBe(15 * 60_000);

    const signature = await account.signTypedData(message.typedData);
    const res = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign`, headers, payload: { address: account.address, nonce: message.nonce, signature } });
    expect(res.statusCode, res.body).toBe(201);
    const signed = res.json();
    expect(signed).toMatchObject({ documentId: doc.id, userId, chainType: 'evm', address: account.address, scheme: 'eip712', signerKind: 'eoa', documentSha256: doc.sha256, signature, nonce: message.nonce });

    // Anyone re-verifies from the record alone.
    const read = await h.inject({ method: 'GET', url: `/signed-documents/${signed.id}`, headers });
    expect(read.json()).toEqual(signed);
    expect(await recoverTypedDataAddress({ ...read.json().payload.typedData, signature })).toBe(account.address);
    expect(read.json().payload.typedData.message.documentSha256).toBe(`0x${doc.sha256}`);

    const mine = await h.inject({ method: 'GET', url: '/signed-documents', headers });
    expect(mine.json()).toMatchObject({ total: 1, data: [{ id: signed.id }] });
    const byKey = await h.inject({ method: 'GET', url: `/signed-documents?userId=${userId}&documentId=${doc.id}`, headers: h.keyHeaders() });
    expect(byKey.json()).toMatchObject({ total: 1, data: [{ id: signed.id }] });
    expect((await outbox(h, undefined, 'document.signed')).filter((e) => e.payload.signedDocumentId === signed.id)).toHaveLength(1);
    expect((await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}`, headers })).json().signatures).toBe(1);

    // The replayed nonce is refused; a new message for the same address is 409.
    const replay = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign`, headers, payload: { address: account.address, nonce: message.nonce, signature } });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().code).toBe('CHALLENGE_USED');
    const again = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}/sign?address=${account.address}&chainType=evm`, headers });
    expect(again.statusCode).toBe(409);

    // Metadata still changes after signing; the hash the signature binds does not.
    const patched = await h.inject({ method: 'PATCH', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders(), payload: { metadata: { closing: '2027' } } });
    expect(patched.json()).toMatchObject({ sha256: doc.sha256, signatures: 1 });
    // Soft delete keeps the signed copy readable and verifiable.
    await h.inject({ method: 'DELETE', url: `/tenant-documents/${doc.id}`, headers: h.keyHeaders() });
    expect((await h.inject({ method: 'GET', url: `/signed-documents/${signed.id}`, headers })).json()).toEqual(signed);
  });

  it('EIP-191 text by a viem account', async () => {
    const doc = await createTenantDocument(h);
    const { headers } = await signer();
    const account = privateKeyToAccount(generatePrivateKey());
    const message = await askEvm(headers, doc.id, account.address);
    expect(message.message).toContain(`SHA-256: ${doc.sha256}`);
    const signature = await account.signMessage({ message: message.message });
    const res = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign`, headers, payload: { address: account.address, nonce: message.nonce, signature, scheme: 'eip191' } });
    expect(res.statusCode, res.body).toBe(201);
    const { payload } = res.json();
    expect(await verifyMessage({ address: account.address, message: payload.message, signature })).toBe(true);
    expect(hashMessage(payload.message)).toBe(hashMessage(message.message));
  });

  it('an EIP-1271 contract wallet on the local chain signs through its owner', async () => {
    const contracts = compileWallets();
    const chain = await h.container.platform.chains.evm();
    const owner = privateKeyToAccount(generatePrivateKey());
    const hash = await chain.walletClient(chain.devAccounts[0]!).deployContract({ abi: contracts.wallet.abi, bytecode: contracts.wallet.bytecode, args: [owner.address] });
    const contractAddress = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);

    const doc = await createTenantDocument(h);
    const { headers } = await signer();
    const message = await askEvm(headers, doc.id, contractAddress);
    const signature = await owner.signTypedData(message.typedData);
    const res = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign`, headers, payload: { address: contractAddress, nonce: message.nonce, signature } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ address: contractAddress, signerKind: 'contract' });
  });
});

describe('signing with an XRPL wallet', () => {
  it('an xrpl Wallet signs messageHex: 201, and the record re-verifies with ripple-keypairs', async () => {
    const doc = await createTenantDocument(h);
    const { userId, headers } = await signer();
    const wallet = Wallet.generate();
    const res0 = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}/sign?address=${wallet.classicAddress}&chainType=xrpl`, headers });
    expect(res0.statusCode, res0.body).toBe(200);
    const message = res0.json();
    expect(message).toMatchObject({ chainType: 'xrpl', address: wallet.classicAddress, documentSha256: doc.sha256 });
    expect(message.typedData).toBeUndefined();
    expect(Buffer.from(message.messageHex, 'hex').toString('utf8')).toBe(message.message);

    const signature = signXrpl(message.messageHex, wallet.privateKey);
    const res = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign/xrpl`, headers, payload: { address: wallet.classicAddress, nonce: message.nonce, signature, publicKey: wallet.publicKey } });
    expect(res.statusCode, res.body).toBe(201);
    const signed = res.json();
    expect(signed).toMatchObject({ userId, chainType: 'xrpl', address: wallet.classicAddress, scheme: 'xrpl-message', signerKind: 'master', publicKey: wallet.publicKey.toUpperCase() });
    expect(verifyXrplSignature(signed.payload.messageHex, signed.signature, signed.publicKey)).toBe(true);
    expect(signed.payload.message).toContain(`SHA-256: ${doc.sha256}`);

    const replay = await h.inject({ method: 'POST', url: `/tenant-documents/${doc.id}/sign/xrpl`, headers, payload: { address: wallet.classicAddress, nonce: message.nonce, signature, publicKey: wallet.publicKey } });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().code).toBe('CHALLENGE_USED');
  });
});

