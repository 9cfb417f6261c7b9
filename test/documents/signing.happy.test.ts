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

/** What was signed, as the record keeps it (SignedDocument.payload is an open object in the OpenAPI document). */
type SignedPayload = { typedData?: NonNullable<Awaited<ReturnType<typeof askEvm>>['typedData']>; message: string; messageHex?: string };
const payloadOf = (signed: { payload: Record<string, unknown> }) => signed.payload as SignedPayload;

async function signer() {
  const userId = await h.createUser();
  return { userId, headers: h.bearerHeaders(await h.tokenFor(userId)) };
}

async function askEvm(headers: Record<string, string>, documentId: string, address: string) {
  const { data, error, response } = await h.api(headers).GET('/tenant-documents/{id}/sign', { params: { path: { id: documentId }, query: { address, chainType: 'evm' } } });
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!;
}

describe('tenant documents', () => {
  it('create (base64), read by a user, patch metadata, list, soft delete (200 with the object)', async () => {
    const pdf = makePdf({ text: 'Terms' });
    const doc = await createTenantDocument(h, undefined, pdf, 'Terms');
    expect(doc).toMatchObject({ title: 'Terms', metadata: { fund: 'I' }, mediaType: 'application/pdf', sha256: createHash('sha256').update(pdf).digest('hex'), signatures: 0, deletedAt: null });
    const user = await signer();
    const byId = { params: { path: { id: doc.id } } };
    const read = await h.api(user.headers).GET('/tenant-documents/{id}', byId);
    expect(read.response.status).toBe(200);
    // The content is raw bytes, compared byte for byte: inject.
    const content = await h.inject({ method: 'GET', url: `/tenant-documents/${doc.id}/content`, headers: user.headers });
    expect(content.rawPayload.equals(pdf)).toBe(true);

    const api = h.api(h.keyHeaders());
    const patched = await api.PATCH('/tenant-documents/{id}', { ...byId, body: { title: 'Terms v1', metadata: { fund: 'II' } } });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    expect(patched.data).toMatchObject({ title: 'Terms v1', metadata: { fund: 'II' }, sha256: doc.sha256 });
    const list = await api.GET('/tenant-documents');
    expect(list.data!.data.map((d) => d.id)).toContain(doc.id);

    const deleted = await api.DELETE('/tenant-documents/{id}', byId);
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toMatchObject({ id: doc.id, deletedAt: expect.any(String) });
    expect((await api.GET('/tenant-documents/{id}', byId)).response.status).toBe(404);
    const after = await api.GET('/tenant-documents');
    expect(after.data!.data.map((d) => d.id)).not.toContain(doc.id);
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

    const signature = await account.signTypedData(message.typedData!);
    const api = h.api(headers);
    const byId = { params: { path: { id: doc.id } } };
    const res = await api.POST('/tenant-documents/{id}/sign', { ...byId, body: { address: account.address, nonce: message.nonce, signature } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const signed = res.data!;
    expect(signed).toMatchObject({ documentId: doc.id, userId, chainType: 'evm', address: account.address, scheme: 'eip712', signerKind: 'eoa', documentSha256: doc.sha256, signature, nonce: message.nonce });

    // Anyone re-verifies from the record alone.
    const signedById = { params: { path: { id: signed.id } } };
    const read = await api.GET('/signed-documents/{id}', signedById);
    expect(read.data).toEqual(signed);
    expect(await recoverTypedDataAddress({ ...payloadOf(read.data!).typedData!, signature })).toBe(account.address);
    expect(payloadOf(read.data!).typedData!.message.documentSha256).toBe(`0x${doc.sha256}`);

    const mine = await api.GET('/signed-documents');
    expect(mine.data).toMatchObject({ total: 1, data: [{ id: signed.id }] });
    const byKey = await h.api(h.keyHeaders()).GET('/signed-documents', { params: { query: { userId, documentId: doc.id } } });
    expect(byKey.data).toMatchObject({ total: 1, data: [{ id: signed.id }] });
    expect((await outbox(h, undefined, 'document.signed')).filter((e) => e.payload.signedDocumentId === signed.id)).toHaveLength(1);
    expect((await api.GET('/tenant-documents/{id}', byId)).data!.signatures).toBe(1);

    // The replayed nonce is refused; a new message for the same address is 409.
    const replay = await api.POST('/tenant-documents/{id}/sign', { ...byId, body: { address: account.address, nonce: message.nonce, signature } });
    expect(replay.response.status).toBe(400);
    expect(replay.error!.code).toBe('CHALLENGE_USED');
    const again = await api.GET('/tenant-documents/{id}/sign', { params: { path: { id: doc.id }, query: { address: account.address, chainType: 'evm' } } });
    expect(again.response.status).toBe(409);

    // Metadata still changes after signing; the hash the signature binds does not.
    const patched = await h.api(h.keyHeaders()).PATCH('/tenant-documents/{id}', { ...byId, body: { metadata: { closing: '2027' } } });
    expect(patched.data).toMatchObject({ sha256: doc.sha256, signatures: 1 });
    // Soft delete keeps the signed copy readable and verifiable.
    await h.api(h.keyHeaders()).DELETE('/tenant-documents/{id}', byId);
    expect((await api.GET('/signed-documents/{id}', signedById)).data).toEqual(signed);
  });

  it('EIP-191 text by a viem account', async () => {
    const doc = await createTenantDocument(h);
    const { headers } = await signer();
    const account = privateKeyToAccount(generatePrivateKey());
    const message = await askEvm(headers, doc.id, account.address);
    expect(message.message).toContain(`SHA-256: ${doc.sha256}`);
    const signature = await account.signMessage({ message: message.message });
    const res = await h.api(headers).POST('/tenant-documents/{id}/sign', { params: { path: { id: doc.id } }, body: { address: account.address, nonce: message.nonce, signature, scheme: 'eip191' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const payload = payloadOf(res.data!);
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
    const signature = await owner.signTypedData(message.typedData!);
    const res = await h.api(headers).POST('/tenant-documents/{id}/sign', { params: { path: { id: doc.id } }, body: { address: contractAddress, nonce: message.nonce, signature } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({ address: contractAddress, signerKind: 'contract' });
  });
});

describe('signing with an XRPL wallet', () => {
  it('an xrpl Wallet signs messageHex: 201, and the record re-verifies with ripple-keypairs', async () => {
    const doc = await createTenantDocument(h);
    const { userId, headers } = await signer();
    const wallet = Wallet.generate();
    const api = h.api(headers);
    const byId = { params: { path: { id: doc.id } } };
    const res0 = await api.GET('/tenant-documents/{id}/sign', { params: { path: { id: doc.id }, query: { address: wallet.classicAddress, chainType: 'xrpl' } } });
    expect(res0.response.status, JSON.stringify(res0.error)).toBe(200);
    const message = res0.data!;
    expect(message).toMatchObject({ chainType: 'xrpl', address: wallet.classicAddress, documentSha256: doc.sha256 });
    expect(message.typedData).toBeUndefined();
    expect(Buffer.from(message.messageHex, 'hex').toString('utf8')).toBe(message.message);

    const signature = signXrpl(message.messageHex, wallet.privateKey);
    const res = await api.POST('/tenant-documents/{id}/sign/xrpl', { ...byId, body: { address: wallet.classicAddress, nonce: message.nonce, signature, publicKey: wallet.publicKey } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const signed = res.data!;
    expect(signed).toMatchObject({ userId, chainType: 'xrpl', address: wallet.classicAddress, scheme: 'xrpl-message', signerKind: 'master', publicKey: wallet.publicKey.toUpperCase() });
    expect(verifyXrplSignature(payloadOf(signed).messageHex!, signed.signature, signed.publicKey!)).toBe(true);
    expect(payloadOf(signed).message).toContain(`SHA-256: ${doc.sha256}`);

    const replay = await api.POST('/tenant-documents/{id}/sign/xrpl', { ...byId, body: { address: wallet.classicAddress, nonce: message.nonce, signature, publicKey: wallet.publicKey } });
    expect(replay.response.status).toBe(400);
    expect(replay.error!.code).toBe('CHALLENGE_USED');
  });
});

