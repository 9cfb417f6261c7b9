import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { keccak256, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signEvm, type SandboxChains } from '../../src/sandboxes/custody-a/chains.js';
import { walletKeyContext } from '../../src/sandboxes/custody-a/context.js';
import { custodyASandboxTransfers, custodyASandboxWallets, type SandboxTransferRow } from '../../src/sandboxes/custody-a/table.js';
import { custodyBSandboxSignatures, custodyBSandboxWallets } from '../../src/sandboxes/custody-b/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, evmChain, fundEvm, xrplLedger } from './helpers.js';
import { custodyTransactions } from '../../src/modules/custody/table.js';

/**
 * The custody-a sandbox's accepted work survives a crash: rows left the way a process killed at
 * each step leaves them (accepted and unsigned; signed and stored but never sent; sent but not
 * recorded) are claimed by the in-flight sweeper once their lease has passed and finished
 * exactly once (the stored signed transaction is sent again, never signed anew).
 */
let h: Harness;
let sandboxWallet: typeof custodyASandboxWallets.$inferSelect;
let key: Hex;
let vault: Awaited<ReturnType<typeof createVault>>;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  const userId = await h.createUser();
  vault = await createVault(h, userId);
  await fundEvm(h, vault.address, '5');
  const [found] = await h.container.db.select().from(custodyASandboxWallets).where(eq(custodyASandboxWallets.address, vault.address));
  sandboxWallet = found!;
  key = (await h.container.platform.secrets.decrypt(sandboxWallet.keySealed, walletKeyContext(sandboxWallet.id))) as Hex;
});
afterAll(async () => h.close());

const chains = (): SandboxChains => ({ evmChain: () => evmChain(h), xrplLedger: xrplLedger(h), xrplNetwork: async () => 'local' });
const balance = async (address: string) => (await evmChain(h)).publicClient.getBalance({ address: address as Hex });
const past = () => new Date(h.clock.now().getTime() - 1000);

/** A transfer row as a crash at some step leaves it. */
async function leftBehind(to: string, amount: string, patch: Partial<SandboxTransferRow> = {}): Promise<SandboxTransferRow> {
  const now = h.clock.now();
  const [row] = await h.container.db
    .insert(custodyASandboxTransfers)
    .values({
      id: randomUUID(), apiKey: sandboxWallet.apiKey, idempotentId: randomUUID(), sourceWalletId: sandboxWallet.id, destinationAddress: to, assetType: 'ETH', amount,
      deductFee: false, memo: null, questionnaireSealed: null, status: 'QUEUED', hash: null, signedTx: null, failureReason: null, createdAt: now, updatedAt: now,
      leaseUntil: past(), attempts: 1, ...patch,
    })
    .returning();
  return row!;
}

const reread = async (id: string) => (await h.container.db.select().from(custodyASandboxTransfers).where(eq(custodyASandboxTransfers.id, id)))[0]!;
const sweep = () => h.container.platform.inFlight.sweeper.sweepOnce();
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;

// First in the file: its drain() waits for every background task of the harness, and the rows the
// later tests leave behind (transfers Bastion never recorded) have webhooks that Bastion answers
// 503 (not recorded yet), which the sandbox sends again for 14 s before it gives up.
describe("Bastion's own record of a custody-a transaction", () => {
  it('whose webhooks were lost (left APPROVED, no hash) is moved to final by the sweep, without a read', async () => {
    const to = newAddress();
    const res = await h.inject({
      method: 'POST', url: `/custody-a/vaults/${vault.id}/wallets/${vault.wallets[0]!.walletId}/transactions/transfer`,
      headers: { ...h.keyHeaders(), 'idempotency-key': randomUUID() }, payload: { destinationAddress: to, symbol: 'ETH', qty: '0.01' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().transactionId as string;
    await drain(h);
    const t = custodyTransactions;
    await h.container.db.update(t).set({ status: 'APPROVED', hash: null, leaseUntil: null }).where(eq(t.id, id));
    await sweep();
    const [row] = await h.container.db.select().from(t).where(eq(t.id, id));
    expect(row).toMatchObject({ status: 'CONFIRMED', failureReason: null });
    expect(await onChainStatus(row!.hash!)).toBe('success');
    expect(await balance(to)).toBe(parseEther('0.01'));
  });
});

describe('custody-a sandbox transfers cut by a crash', () => {
  it('accepted, never signed: the sweep signs, sends and completes it, once', async () => {
    const to = newAddress();
    const row = await leftBehind(to, '0.1');
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    const done = await reread(row.id);
    expect(done).toMatchObject({ status: 'COMPLETED', failureReason: null });
    expect(await balance(to)).toBe(parseEther('0.1'));
    const receipt = await (await evmChain(h)).publicClient.getTransactionReceipt({ hash: done.hash as Hex });
    expect(receipt.status).toBe('success');
    expect(await sweep()).toBe(0);
    expect(await balance(to)).toBe(parseEther('0.1'));
  });

  it('signed and stored, never sent: the sweep sends the stored bytes (same hash)', async () => {
    const to = newAddress();
    const signed = await signEvm(chains(), key, { to, qty: '0.2' });
    const row = await leftBehind(to, '0.2', { signedTx: signed.raw, hash: signed.hash });
    await sweep();
    expect(await reread(row.id)).toMatchObject({ status: 'COMPLETED', hash: signed.hash });
    expect(await balance(to)).toBe(parseEther('0.2'));
  });

  it('sent, the send not recorded: the resend is the same transaction; value moves once', async () => {
    const to = newAddress();
    const signed = await signEvm(chains(), key, { to, qty: '0.3' });
    const chain = await evmChain(h);
    await chain.publicClient.sendRawTransaction({ serializedTransaction: signed.raw });
    const row = await leftBehind(to, '0.3', { signedTx: signed.raw, hash: signed.hash });
    await sweep();
    expect(await reread(row.id)).toMatchObject({ status: 'COMPLETED', hash: signed.hash });
    expect(await balance(to)).toBe(parseEther('0.3'));
  });

  it('signed, but its nonce went to another transaction: it can never be mined, so it is signed again and sent once', async () => {
    const to = newAddress();
    const stale = await signEvm(chains(), key, { to, qty: '0.4' });
    // Another transaction of the wallet takes the nonce first.
    const chain = await evmChain(h);
    const other = await signEvm(chains(), key, { to: newAddress(), qty: '0.01' });
    await chain.publicClient.sendRawTransaction({ serializedTransaction: other.raw });
    const row = await leftBehind(to, '0.4', { signedTx: stale.raw, hash: stale.hash });
    await sweep();
    const done = await reread(row.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.hash).not.toBe(stale.hash);
    expect(await balance(to)).toBe(parseEther('0.4'));
  });

  it('a row whose lease is still held (its request, or another instance, is on it) is left alone', async () => {
    const to = newAddress();
    const row = await leftBehind(to, '0.05', { leaseUntil: new Date(h.clock.now().getTime() + 60_000) });
    expect(await sweep()).toBe(0);
    expect(await reread(row.id)).toMatchObject({ status: 'QUEUED', signedTx: null });
    h.clock.advance(61_000);
    expect(await sweep()).toBe(1);
    expect(await reread(row.id)).toMatchObject({ status: 'COMPLETED' });
    expect(await balance(to)).toBe(parseEther('0.05'));
  });
});

describe('custody-b sandbox broadcasts cut by a crash', () => {
  /** A custody-b wallet of the sandbox with ETH, and a signed transfer of its key (as the broadcast route stores it). */
  async function fundedWallet() {
    const privateKey = generatePrivateKey();
    const account = privateKeyToAccount(privateKey);
    const id = `wa-${randomUUID()}`;
    await h.container.db.insert(custodyBSandboxWallets).values({
      id, orgId: 'org-test', userId: 'user-test', network: 'EthereumSepolia', name: null, address: account.address, publicKey: account.publicKey,
      sealedKey: 'unused here', createdAt: h.clock.now(),
    });
    await fundEvm(h, account.address, '1');
    return { id, account };
  }
  async function signedTransfer(account: ReturnType<typeof privateKeyToAccount>, to: string, eth: string) {
    const chain = await evmChain(h);
    const request = await chain.walletClient(account).prepareTransactionRequest({ to: to as Hex, value: parseEther(eth), account, chain: chain.chain });
    const raw = await account.signTransaction(request as Parameters<typeof account.signTransaction>[0]);
    return { raw, hash: keccak256(raw) };
  }
  async function broadcastingRow(walletId: string, signed: { raw: Hex; hash: Hex }) {
    const id = `tx-${randomUUID()}`;
    await h.container.db.insert(custodyBSandboxSignatures).values({
      id, orgId: 'org-test', walletId, kind: 'Transaction', requestBody: {}, signedData: signed.raw, txHash: signed.hash, status: 'Broadcasting', createdAt: h.clock.now(), leaseUntil: past(), attempts: 1,
    });
    return id;
  }
  const readSignature = async (id: string) => (await h.container.db.select().from(custodyBSandboxSignatures).where(eq(custodyBSandboxSignatures.id, id)))[0]!;

  it('stored, never sent: the sweep sends the same bytes; stored and sent, not recorded: recorded, sent once', async () => {
    const { id: walletId, account } = await fundedWallet();
    const [to1, to2] = [newAddress(), newAddress()];
    const first = await signedTransfer(account, to1, '0.1');
    const row1 = await broadcastingRow(walletId, first);
    await sweep();
    expect(await readSignature(row1)).toMatchObject({ status: 'Broadcasted', txHash: first.hash, failureReason: null });
    expect(await onChainStatus(first.hash)).toBe('success');

    const second = await signedTransfer(account, to2, '0.2');
    await (await evmChain(h)).publicClient.sendRawTransaction({ serializedTransaction: second.raw });
    const row2 = await broadcastingRow(walletId, second);
    await sweep();
    expect(await readSignature(row2)).toMatchObject({ status: 'Broadcasted', txHash: second.hash });
    expect(await balance(to1)).toBe(parseEther('0.1'));
    expect(await balance(to2)).toBe(parseEther('0.2'));
  });

  it('a stored transaction whose nonce went to another one fails with the reason; it is never signed again', async () => {
    const { id: walletId, account } = await fundedWallet();
    const to = newAddress();
    const stale = await signedTransfer(account, to, '0.1');
    const other = await signedTransfer(account, newAddress(), '0.01');
    await (await evmChain(h)).publicClient.sendRawTransaction({ serializedTransaction: other.raw });
    const row = await broadcastingRow(walletId, stale);
    await sweep();
    expect(await readSignature(row)).toMatchObject({ status: 'Failed', failureReason: expect.stringMatching(/nonce or sequence went to another/) });
    expect(await balance(to)).toBe(0n);
  });
});

async function onChainStatus(hash: string) {
  return (await (await evmChain(h)).publicClient.getTransactionReceipt({ hash: hash as Hex })).status;
}
