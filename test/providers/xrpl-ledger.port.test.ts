import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multisign, Wallet, type Payment, type SubmittableTransaction } from 'xrpl';
import { sign as signMessage } from 'ripple-keypairs';
import { openXrplLedger } from '../../src/chains/xrpl-ledger.js';
import { XrplLedgerError, type XrplLedgerPort } from '../../src/providers/xrpl-ledger/port.js';
import { inspectSignedBlob, verifyXrplMessage } from '../../src/providers/xrpl-ledger/signatures.js';

/** The port as the wallet module will use it: over the stand-in, or over XRPL_URL (with XRPL_FAUCET_URL) when set. */
let port: XrplLedgerPort;

beforeAll(async () => {
  port = await openXrplLedger({ xrplUrl: process.env.XRPL_URL, xrplFaucetUrl: process.env.XRPL_FAUCET_URL, standIn: { closeIntervalMs: 100 } });
});
afterAll(async () => port?.close());

async function funded(xrp = '50'): Promise<Wallet> {
  const wallet = Wallet.generate();
  await port.fundAccount(wallet.classicAddress, xrp);
  return wallet;
}

async function sendSigned(blob: string, lastLedgerSequence: number) {
  const submitted = await port.submit(blob);
  return { submitted, final: await port.waitForFinal(submitted.hash, lastLedgerSequence, { timeoutMs: 20_000 }) };
}

describe('xrpl-ledger port (RippledLedger adapter)', () => {
  it('reads the server: fees, reserves, validated ledger', async () => {
    const info = await port.serverInfo();
    expect(info.validatedLedgerIndex).toBeGreaterThan(0);
    expect(BigInt(info.baseFeeDrops)).toBeGreaterThan(0n);
    expect(BigInt(info.reserveBaseDrops)).toBeGreaterThan(0n);
    expect(port.isSandbox).toBe(!process.env.XRPL_URL);
  });

  it('funds from the faucet, reads account info (null when absent), submits and follows a payment to validation', async () => {
    expect(await port.accountInfo(Wallet.generate().classicAddress)).toBeNull();
    expect(await port.accountLines(Wallet.generate().classicAddress)).toEqual([]);
    const a = await funded('50');
    const info = await port.accountInfo(a.classicAddress);
    expect(info).toMatchObject({ address: a.classicAddress, balanceDrops: '50000000', ownerCount: 0, validated: true, flags: { defaultRipple: false, disableMaster: false } });
    const tx = await port.autofill<Payment>({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '10000000' });
    expect(tx.Sequence).toBe(info!.sequence);
    const signed = a.sign(tx);
    const { submitted, final } = await sendSigned(signed.tx_blob, tx.LastLedgerSequence!);
    expect(submitted).toMatchObject({ hash: signed.hash, engineResult: 'tesSUCCESS', accepted: true });
    expect(final).toMatchObject({ status: 'validated', hash: signed.hash, result: 'tesSUCCESS' });
    expect(await port.lookupTransaction(signed.hash)).toMatchObject({ found: true, validated: true, result: 'tesSUCCESS' });
    expect(await port.lookupTransaction('B'.repeat(64))).toEqual({ hash: 'B'.repeat(64), found: false, validated: false });
  });

  it('reports the regular key, the SignerList and the flags after they are set; follows a multi-signed payment', async () => {
    const a = await funded('60');
    const regular = Wallet.generate();
    const [s1, s2] = [Wallet.generate(), Wallet.generate()];
    const steps: SubmittableTransaction[] = [
      { TransactionType: 'SetRegularKey', Account: a.classicAddress, RegularKey: regular.classicAddress },
      { TransactionType: 'SignerListSet', Account: a.classicAddress, SignerQuorum: 2, SignerEntries: [s1, s2].map((s) => ({ SignerEntry: { Account: s.classicAddress, SignerWeight: 1 } })) },
      { TransactionType: 'AccountSet', Account: a.classicAddress, SetFlag: 8 },
    ];
    for (const step of steps) {
      const tx = await port.autofill(step);
      expect((await sendSigned(a.sign(tx).tx_blob, tx.LastLedgerSequence!)).final).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
    }
    const info = await port.accountInfo(a.classicAddress);
    expect(info).toMatchObject({ regularKey: regular.classicAddress, ownerCount: 1, flags: { defaultRipple: true } });
    expect(info!.signerList).toEqual({ quorum: 2, signers: expect.arrayContaining([{ account: s1.classicAddress, weight: 1 }, { account: s2.classicAddress, weight: 1 }]) });
    const tx = await port.autofill<Payment>({ TransactionType: 'Payment', Account: a.classicAddress, Destination: s1.classicAddress, Amount: '20000000' }, { signersCount: 2 });
    const blob = multisign([s1.sign(tx, true).tx_blob, s2.sign(tx, true).tx_blob]);
    expect((await sendSigned(blob, tx.LastLedgerSequence!)).final).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
  });

  it('answers "expired" for a transaction that can never apply once LastLedgerSequence has passed', async () => {
    const a = await funded('30');
    const tx = await port.autofill<Payment>({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '2000000' });
    const gap = { ...tx, Sequence: tx.Sequence! + 1, LastLedgerSequence: (await port.serverInfo()).validatedLedgerIndex + 3 };
    const { submitted, final } = await sendSigned(a.sign(gap).tx_blob, gap.LastLedgerSequence);
    expect(submitted.engineResult).toBe('terPRE_SEQ');
    expect(final).toMatchObject({ status: 'expired', hash: submitted.hash });
  });

  it('two submissions racing for one Sequence: exactly one applies, the other is tefPAST_SEQ, nothing is spent twice', async () => {
    const a = await funded('40');
    const to = Wallet.generate().classicAddress;
    const [t1, t2] = await Promise.all([1, 2].map(() => port.autofill<Payment>({ TransactionType: 'Payment', Account: a.classicAddress, Destination: to, Amount: '5000000' })));
    expect(t1!.Sequence).toBe(t2!.Sequence);
    const results = await Promise.all([t1!, { ...t2!, Amount: '6000000' }].map((t) => port.submit(a.sign(t).tx_blob)));
    expect(results.map((r) => r.engineResult).sort()).toEqual(['tefPAST_SEQ', 'tesSUCCESS']);
    const winner = results.find((r) => r.engineResult === 'tesSUCCESS')!;
    expect(await port.waitForFinal(winner.hash, t1!.LastLedgerSequence!, { timeoutMs: 20_000 })).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
    const loser = results.find((r) => r.engineResult === 'tefPAST_SEQ')!;
    expect(await port.lookupTransaction(loser.hash)).toMatchObject({ found: false });
    const info = await port.accountInfo(a.classicAddress);
    expect(info!.sequence).toBe(t1!.Sequence! + 1);
  });

  it('turns a blob the server refuses into XrplLedgerError invalid_transaction', async () => {
    const a = Wallet.generate();
    await expect(port.submit('00')).rejects.toBeInstanceOf(XrplLedgerError);
    const signed = a.sign({ TransactionType: 'Payment', Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '1', Fee: '12', Sequence: 1 });
    const tampered = signed.tx_blob.replace(/(.{20})$/, (m) => m.split('').reverse().join(''));
    await expect(port.submit(tampered)).rejects.toMatchObject({ kind: expect.stringMatching(/invalid_transaction|rejected/) });
  });
});

describe('xrpl-ledger signatures (local checks)', () => {
  it('inspects a signed blob: hash, signing accounts; refuses junk, unsigned and tampered blobs', () => {
    const a = Wallet.generate();
    const tx = { TransactionType: 'Payment' as const, Account: a.classicAddress, Destination: Wallet.generate().classicAddress, Amount: '1000', Fee: '12', Sequence: 5, LastLedgerSequence: 10 };
    const signed = a.sign(tx);
    expect(inspectSignedBlob(signed.tx_blob)).toMatchObject({ ok: true, hash: signed.hash, signingAccounts: [a.classicAddress] });
    expect(inspectSignedBlob('xyz')).toMatchObject({ ok: false, reason: 'not_hex' });
    expect(inspectSignedBlob('ABCD')).toMatchObject({ ok: false, reason: 'not_decodable' });
    const other = Wallet.generate();
    const forged = signed.tx_blob.replace(a.publicKey, other.publicKey);
    expect(inspectSignedBlob(forged)).toMatchObject({ ok: false, reason: 'bad_signature' });
    const [s1, s2] = [Wallet.generate(), Wallet.generate()];
    const multi = multisign([s1.sign(tx, true).tx_blob, s2.sign(tx, true).tx_blob]);
    const inspected = inspectSignedBlob(multi);
    expect(inspected.ok && inspected.signingAccounts.sort()).toEqual([s1.classicAddress, s2.classicAddress].sort());
  });

  it('verifies a message signed by the master key or the ledger-read regular key, and nothing else', async () => {
    const account = Wallet.generate();
    const regular = Wallet.generate();
    const message = 'bastion challenge 42';
    const hex = Buffer.from(message, 'utf8').toString('hex').toUpperCase();
    const byMaster = signMessage(hex, account.privateKey);
    const byRegular = signMessage(hex, regular.privateKey);
    expect(await verifyXrplMessage({ address: account.classicAddress, message, signature: byMaster, publicKey: account.publicKey })).toEqual({ valid: true, keyKind: 'master' });
    expect(await verifyXrplMessage({ address: account.classicAddress, message, signature: byRegular, publicKey: regular.publicKey, regularKey: regular.classicAddress })).toEqual({ valid: true, keyKind: 'regular' });
    expect(await verifyXrplMessage({ address: account.classicAddress, message, signature: byRegular, publicKey: regular.publicKey })).toEqual({ valid: false });
    expect(await verifyXrplMessage({ address: account.classicAddress, message: 'other', signature: byMaster, publicKey: account.publicKey })).toEqual({ valid: false });
    expect(await verifyXrplMessage({ address: account.classicAddress, message, signature: 'zz', publicKey: 'nope' })).toEqual({ valid: false });
  });
});
