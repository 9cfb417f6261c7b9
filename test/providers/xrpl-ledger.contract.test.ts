import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, encode, getBalanceChanges, multisign, Wallet, type Payment, type SubmittableTransaction } from 'xrpl';
import { openLedgerUnderTest, resultOf, type LedgerUnderTest } from './xrpl-ledger.fixture.js';
import { ONE_PASS_ONLY } from '../helpers/passes.js';

/**
 * The ledger contract, driven with the unmodified `xrpl` Client: the stand-in by default; set
 * XRPL_URL (a standalone rippled) to run the same suite against rippled. The ledger keeps no
 * state in the service's database, so the suite runs on one pass of `.ci/run` (the PGlite one).
 */
let L: LedgerUnderTest;
let reserveBase = 0n;
let reserveInc = 0n;

beforeAll(async () => {
  if (ONE_PASS_ONLY) return;
  L = await openLedgerUnderTest();
  const state = (await L.client.request({ command: 'server_state' })).result.state.validated_ledger!;
  reserveBase = BigInt(state.reserve_base);
  reserveInc = BigInt(state.reserve_inc);
});
afterAll(async () => L?.stop());

const balance = async (address: string) => BigInt((await L.client.request({ command: 'account_info', account: address, ledger_index: 'validated' })).result.account_data.Balance);
const info = async (address: string) => (await L.client.request({ command: 'account_info', account: address, ledger_index: 'validated', signer_lists: true })).result;
/** Submits without waiting: for results that never reach a ledger (tef, tel, tem, ter). */
const submitOnly = async (tx: SubmittableTransaction, wallet: Wallet) => (await L.client.submit(tx, { wallet })).result;
const pay = (from: Wallet, to: string, drops: string, extra: Partial<Payment> = {}): Payment => ({ TransactionType: 'Payment', Account: from.classicAddress, Destination: to, Amount: drops, ...extra });

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: server commands', () => {
  it('answers server_info, fee, ledger, ledger_current and ledger_closed as rippled does', async () => {
    const serverInfo = (await L.client.request({ command: 'server_info' })).result.info;
    expect(serverInfo.validated_ledger?.base_fee_xrp).toBeGreaterThan(0);
    expect(serverInfo.build_version).toEqual(expect.any(String));
    const fee = (await L.client.request({ command: 'fee' })).result;
    expect(Number(fee.drops.base_fee)).toBeGreaterThan(0);
    const validated = (await L.client.request({ command: 'ledger', ledger_index: 'validated' })).result;
    expect(validated.validated).toBe(true);
    expect(validated.ledger_hash).toMatch(/^[0-9A-F]{64}$/);
    const current = (await L.client.request({ command: 'ledger_current' })).result.ledger_current_index;
    expect(current).toBeGreaterThan(validated.ledger_index);
    const closed = (await L.client.request({ command: 'ledger_closed' })).result;
    expect(closed.ledger_index).toBeGreaterThanOrEqual(validated.ledger_index);
  });

  it('refuses unknown accounts and malformed addresses with rippled error tokens', async () => {
    await expect(L.client.request({ command: 'account_info', account: Wallet.generate().classicAddress })).rejects.toMatchObject({ data: { error: 'actNotFound' } });
    await expect(L.client.request({ command: 'account_info', account: 'rNotAnAddress' })).rejects.toMatchObject({ data: { error: 'actMalformed' } });
    await expect(L.client.request({ command: 'tx', transaction: 'A'.repeat(64) })).rejects.toMatchObject({ data: { error: 'txnNotFound' } });
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: Payment (XRP)', () => {
  it('creates the destination, moves the amount, charges the fee, and the tx is found validated (submitAndWait)', async () => {
    const a = await L.fund(100);
    const b = Wallet.generate();
    const before = await balance(a.classicAddress);
    const { result } = await L.client.submitAndWait(pay(a, b.classicAddress, '25000000'), { wallet: a, autofill: true });
    expect(resultOf(result)).toBe('tesSUCCESS');
    expect(result.validated).toBe(true);
    const fee = BigInt((result.tx_json as { Fee: string }).Fee);
    expect(await balance(a.classicAddress)).toBe(before - 25_000_000n - fee);
    expect(await balance(b.classicAddress)).toBe(25_000_000n);
    const tx = (await L.client.request({ command: 'tx', transaction: result.hash })).result;
    expect(tx.validated).toBe(true);
    expect((tx.meta as { delivered_amount: string }).delivered_amount).toBe('25000000');
    const changes = getBalanceChanges(tx.meta as never);
    expect(changes).toEqual(expect.arrayContaining([
      { account: b.classicAddress, balances: [{ currency: 'XRP', value: '25' }] },
      { account: a.classicAddress, balances: [{ currency: 'XRP', value: String(-(25_000_000 + Number(fee)) / 1_000_000) }] },
    ]));
  });

  it('tecNO_DST_INSUF_XRP below the base reserve to a new account, tecUNFUNDED_PAYMENT past the sender reserve; the fee is still taken', async () => {
    const a = await L.fund(30);
    const tooLittle = await L.send(pay(a, Wallet.generate().classicAddress, (reserveBase - 1n).toString()), a);
    expect(resultOf(tooLittle)).toBe('tecNO_DST_INSUF_XRP');
    const left = await balance(a.classicAddress);
    expect(left).toBe(30_000_000n - BigInt((tooLittle.tx_json as { Fee: string }).Fee));
    // rippled's rule: the balance before the fee must cover the amount plus the larger of the reserve and the fee.
    const spendReserve = await L.send(pay(a, Wallet.generate().classicAddress, (left - reserveBase + 1n).toString()), a);
    expect(resultOf(spendReserve)).toBe('tecUNFUNDED_PAYMENT');
    expect((await info(a.classicAddress)).account_data.Sequence).toBe((tooLittle.tx_json as { Sequence: number }).Sequence + 2);
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: Sequence, Fee and LastLedgerSequence', () => {
  it('tefPAST_SEQ for a used sequence; terPRE_SEQ is held and applies once the gap is filled', async () => {
    const a = await L.fund(50);
    const prepared = await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000'));
    const seq = prepared.Sequence!;
    const past = await submitOnly({ ...prepared, Sequence: seq - 1 }, a);
    expect(past.engine_result).toBe('tefPAST_SEQ');
    const ahead = a.sign({ ...prepared, Sequence: seq + 1 });
    expect((await L.client.submit(ahead.tx_blob)).result.engine_result).toBe('terPRE_SEQ');
    const first = await L.send(prepared, a);
    expect(resultOf(first)).toBe('tesSUCCESS');
    await L.closeLedger();
    const held = (await L.client.request({ command: 'tx', transaction: ahead.hash })).result;
    expect((held.meta as { TransactionResult: string }).TransactionResult).toBe('tesSUCCESS');
  });

  it('telINSUF_FEE_P below the base fee, tefMAX_LEDGER past LastLedgerSequence; nothing changes', async () => {
    const a = await L.fund(20);
    const before = await info(a.classicAddress);
    const prepared = await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000'));
    expect((await submitOnly({ ...prepared, Fee: '1' }, a)).engine_result).toBe('telINSUF_FEE_P');
    const validatedIndex = (await L.client.request({ command: 'ledger', ledger_index: 'validated' })).result.ledger_index;
    expect((await submitOnly({ ...prepared, LastLedgerSequence: validatedIndex }, a)).engine_result).toBe('tefMAX_LEDGER');
    await L.closeLedger();
    const after = await info(a.classicAddress);
    expect(after.account_data.Balance).toBe(before.account_data.Balance);
    expect(after.account_data.Sequence).toBe(before.account_data.Sequence);
  });

  it('refuses a blob whose signature does not match its content (fails local checks)', async () => {
    const a = await L.fund(20);
    const signed = a.sign(await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000')));
    const tampered = encode({ ...decode(signed.tx_blob), Amount: '3000000' } as never);
    await expect(L.client.submit(tampered)).rejects.toMatchObject({ data: { error: 'invalidTransaction' } });
    const other = Wallet.generate();
    const wrongKey = encode({ ...decode(signed.tx_blob), SigningPubKey: other.publicKey } as never);
    await expect(L.client.submit(wrongKey)).rejects.toMatchObject({ data: { error: 'invalidTransaction' } });
    // A valid signature by a key the account never authorized.
    expect((await submitOnly(pay(a, other.classicAddress, '2000000'), new Wallet(other.publicKey, other.privateKey, { masterAddress: a.classicAddress }))).engine_result).toBe('tefBAD_AUTH_MASTER');
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: AccountSet', () => {
  it('sets and clears asfDefaultRipple; asfRequireDest makes an untagged payment tecDST_TAG_NEEDED', async () => {
    const a = await L.fund(20);
    const payer = await L.fund(20);
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: a.classicAddress, SetFlag: 8 }, a))).toBe('tesSUCCESS');
    expect((await info(a.classicAddress)).account_flags?.defaultRipple).toBe(true);
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: a.classicAddress, ClearFlag: 8, SetFlag: 1 }, a))).toBe('tesSUCCESS');
    const flags = (await info(a.classicAddress)).account_flags!;
    expect(flags.defaultRipple).toBe(false);
    expect(flags.requireDestinationTag).toBe(true);
    expect(resultOf(await L.send(pay(payer, a.classicAddress, '1000000'), payer))).toBe('tecDST_TAG_NEEDED');
    expect(resultOf(await L.send(pay(payer, a.classicAddress, '1000000', { DestinationTag: 7 }), payer))).toBe('tesSUCCESS');
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: SetRegularKey and a disabled master key', () => {
  it('signs with the regular key, disables the master key (tefMASTER_DISABLED after), refuses other keys (tefBAD_AUTH)', async () => {
    const a = await L.fund(30);
    const lone = await L.fund(20);
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: lone.classicAddress, SetFlag: 4 }, lone))).toBe('tecNO_ALTERNATIVE_KEY');
    const regular = Wallet.generate();
    expect(resultOf(await L.send({ TransactionType: 'SetRegularKey', Account: a.classicAddress, RegularKey: regular.classicAddress }, a))).toBe('tesSUCCESS');
    expect((await info(a.classicAddress)).account_data.RegularKey).toBe(regular.classicAddress);
    const asA = new Wallet(regular.publicKey, regular.privateKey, { masterAddress: a.classicAddress });
    expect(resultOf(await L.send(pay(a, Wallet.generate().classicAddress, '2000000'), asA))).toBe('tesSUCCESS');
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: a.classicAddress, SetFlag: 4 }, a))).toBe('tesSUCCESS');
    expect((await info(a.classicAddress)).account_flags?.disableMasterKey).toBe(true);
    expect((await submitOnly(pay(a, Wallet.generate().classicAddress, '2000000'), a)).engine_result).toBe('tefMASTER_DISABLED');
    const stranger = Wallet.generate();
    expect((await submitOnly(pay(a, stranger.classicAddress, '2000000'), new Wallet(stranger.publicKey, stranger.privateKey, { masterAddress: a.classicAddress }))).engine_result).toBe('tefBAD_AUTH');
    expect(resultOf(await L.send(pay(a, Wallet.generate().classicAddress, '2000000'), asA))).toBe('tesSUCCESS');
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: SignerListSet and multi-signing', () => {
  it('multi-signed payments meet the quorum or fail with tefBAD_QUORUM / tefBAD_SIGNATURE / telINSUF_FEE_P', async () => {
    const a = await L.fund(40);
    const [s1, s2, s3] = [Wallet.generate(), Wallet.generate(), Wallet.generate()];
    const list = await L.send({
      TransactionType: 'SignerListSet', Account: a.classicAddress, SignerQuorum: 3,
      SignerEntries: [s1, s2, s3].map((s, i) => ({ SignerEntry: { Account: s.classicAddress, SignerWeight: i === 2 ? 2 : 1 } })),
    }, a);
    expect(resultOf(list)).toBe('tesSUCCESS');
    const accountInfo = await info(a.classicAddress);
    expect(accountInfo.signer_lists?.[0]?.SignerQuorum).toBe(3);
    expect(accountInfo.account_data.OwnerCount).toBe(1);
    const objects = (await L.client.request({ command: 'account_objects', account: a.classicAddress, type: 'signer_list', ledger_index: 'validated' })).result.account_objects;
    expect(objects).toHaveLength(1);

    const dest = Wallet.generate().classicAddress;
    const tx = await L.client.autofill(pay(a, dest, '5000000'), 2);
    const sign = (w: Wallet, t = tx) => w.sign(t, true).tx_blob;
    const short = multisign([sign(s1), sign(s2)]);
    expect((await L.client.submit(short)).result.engine_result).toBe('tefBAD_QUORUM');
    const outsider = Wallet.generate();
    expect((await L.client.submit(multisign([sign(s3), sign(outsider)]))).result.engine_result).toBe('tefBAD_SIGNATURE');
    const cheap = await L.client.autofill(pay(a, dest, '5000000'));
    expect((await L.client.submit(multisign([sign(s1, cheap), sign(s3, cheap)]))).result.engine_result).toBe('telINSUF_FEE_P');
    const ok = await L.client.submitAndWait(multisign([sign(s1), sign(s3)]));
    expect(resultOf(ok.result)).toBe('tesSUCCESS');
    expect(await balance(dest)).toBe(5_000_000n);

    // With the master key disabled the account still moves by its signers; a signer may sign with its regular key.
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: a.classicAddress, SetFlag: 4 }, a))).toBe('tesSUCCESS');
    const tx2 = await L.client.autofill(pay(a, dest, '1000000'), 2);
    const ok2 = await L.client.submitAndWait(multisign([s2.sign(tx2, true).tx_blob, s3.sign(tx2, true).tx_blob]));
    expect(resultOf(ok2.result)).toBe('tesSUCCESS');
    expect((await submitOnly(pay(a, dest, '1000000'), a)).engine_result).toBe('tefMASTER_DISABLED');
  });

  it('tefNOT_MULTI_SIGNING without a SignerList; tecINSUFFICIENT_RESERVE when the list would take the reserve', async () => {
    const a = await L.fund(10);
    const s = Wallet.generate();
    const tx = await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000'), 1);
    expect((await L.client.submit(multisign([s.sign(tx, true).tx_blob]))).result.engine_result).toBe('tefNOT_MULTI_SIGNING');
    const poor = await L.fund(Number(reserveBase + reserveInc / 2n) / 1_000_000);
    const result = await L.send({ TransactionType: 'SignerListSet', Account: poor.classicAddress, SignerQuorum: 1, SignerEntries: [{ SignerEntry: { Account: s.classicAddress, SignerWeight: 1 } }] }, poor);
    expect(resultOf(result)).toBe('tecINSUFFICIENT_RESERVE');
    expect((await info(poor.classicAddress)).account_data.OwnerCount).toBe(0);
  });

  it('a signer signing with its regular key counts; with an unauthorized key it is tefBAD_SIGNATURE', async () => {
    const a = await L.fund(30);
    const signer = await L.fund(20);
    const signerRegular = Wallet.generate();
    expect(resultOf(await L.send({ TransactionType: 'SetRegularKey', Account: signer.classicAddress, RegularKey: signerRegular.classicAddress }, signer))).toBe('tesSUCCESS');
    expect(resultOf(await L.send({ TransactionType: 'SignerListSet', Account: a.classicAddress, SignerQuorum: 1, SignerEntries: [{ SignerEntry: { Account: signer.classicAddress, SignerWeight: 1 } }] }, a))).toBe('tesSUCCESS');
    const tx = await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000'), 1);
    const viaRegular = new Wallet(signerRegular.publicKey, signerRegular.privateKey);
    expect(resultOf((await L.client.submitAndWait(multisign([viaRegular.sign(tx, signer.classicAddress).tx_blob]))).result)).toBe('tesSUCCESS');
    const tx2 = await L.client.autofill(pay(a, Wallet.generate().classicAddress, '2000000'), 1);
    expect((await L.client.submit(multisign([Wallet.generate().sign(tx2, signer.classicAddress).tx_blob]))).result.engine_result).toBe('tefBAD_SIGNATURE');
    // Once the signer disables its master key, its master signature no longer counts.
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: signer.classicAddress, SetFlag: 4 }, signer))).toBe('tesSUCCESS');
    expect((await L.client.submit(multisign([signer.sign(tx2, true).tx_blob]))).result.engine_result).toBe('tefMASTER_DISABLED');
  });
});

describe.skipIf(ONE_PASS_ONLY)('xrpl-ledger contract: TrustSet and issued payments', () => {
  it('creates trust lines, issues, ripples between holders only through a DefaultRipple issuer', async () => {
    const [issuer, h1, h2, plain] = await Promise.all([L.fund(30), L.fund(30), L.fund(30), L.fund(30)]);
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: issuer.classicAddress, SetFlag: 8 }, issuer))).toBe('tesSUCCESS');
    const trust = (h: Wallet, iss: Wallet, value = '1000') => L.send({ TransactionType: 'TrustSet', Account: h.classicAddress, LimitAmount: { currency: 'USD', issuer: iss.classicAddress, value } }, h);
    // One transaction at a time per account (each autofill reads the account's next Sequence).
    const trusts = await Promise.all([h1, h2].map(async (h) => [await trust(h, issuer), await trust(h, plain)]));
    expect(trusts.flat().map(resultOf)).toEqual(['tesSUCCESS', 'tesSUCCESS', 'tesSUCCESS', 'tesSUCCESS']);
    const lines = (await L.client.request({ command: 'account_lines', account: h1.classicAddress, peer: issuer.classicAddress, ledger_index: 'validated' })).result.lines;
    expect(lines).toEqual([expect.objectContaining({ account: issuer.classicAddress, currency: 'USD', balance: '0', limit: '1000', no_ripple: false, no_ripple_peer: false })]);
    const plainLines = (await L.client.request({ command: 'account_lines', account: h1.classicAddress, peer: plain.classicAddress, ledger_index: 'validated' })).result.lines;
    expect(plainLines).toEqual([expect.objectContaining({ no_ripple: false, no_ripple_peer: true })]);
    expect((await info(h1.classicAddress)).account_data.OwnerCount).toBe(2);

    const usd = (iss: Wallet, value: string) => ({ currency: 'USD', issuer: iss.classicAddress, value });
    expect(resultOf(await L.send(pay(issuer, h1.classicAddress, usd(issuer, '100') as never), issuer))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h1, h2.classicAddress, usd(issuer, '30') as never), h1))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h1, issuer.classicAddress, usd(issuer, '10') as never), h1))).toBe('tesSUCCESS');
    const h1Line = (await L.client.request({ command: 'account_lines', account: h1.classicAddress, peer: issuer.classicAddress, ledger_index: 'validated' })).result.lines[0];
    const h2Line = (await L.client.request({ command: 'account_lines', account: h2.classicAddress, peer: issuer.classicAddress, ledger_index: 'validated' })).result.lines[0];
    expect([h1Line?.balance, h2Line?.balance]).toEqual(['60', '30']);
    const issuerLines = (await L.client.request({ command: 'account_lines', account: issuer.classicAddress, ledger_index: 'validated' })).result.lines;
    expect(issuerLines.map((l) => l.balance).sort()).toEqual(['-30', '-60']);

    expect(resultOf(await L.send(pay(issuer, h1.classicAddress, usd(issuer, '5000') as never), issuer))).toBe('tecPATH_PARTIAL');
    expect(resultOf(await L.send(pay(plain, h1.classicAddress, usd(plain, '50') as never), plain))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h1, h2.classicAddress, usd(plain, '5') as never), h1))).toBe('tecPATH_DRY');
    const owned = (await L.client.request({ command: 'account_objects', account: h1.classicAddress, type: 'state', ledger_index: 'validated' })).result.account_objects;
    expect(owned).toHaveLength(2);
  });

  it('enforces RequireAuth (tfSetfAuth), freezes and DepositAuth', async () => {
    const [issuer, h1, h2, guarded] = await Promise.all([L.fund(30), L.fund(30), L.fund(30), L.fund(30)]);
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: issuer.classicAddress, SetFlag: 2 }, issuer))).toBe('tesSUCCESS');
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: issuer.classicAddress, SetFlag: 8 }, issuer))).toBe('tesSUCCESS');
    const usd = (value: string) => ({ currency: 'USD', issuer: issuer.classicAddress, value });
    await Promise.all([h1, h2].map((h) => L.send({ TransactionType: 'TrustSet', Account: h.classicAddress, LimitAmount: usd('1000') }, h)));
    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: h1.classicAddress, SetFlag: 2 }, h1))).toBe('tecOWNERS');
    expect(resultOf(await L.send(pay(issuer, h1.classicAddress, usd('100') as never), issuer))).toBe('tecPATH_DRY');
    const authorize = (h: Wallet, flags: number) => L.send({ TransactionType: 'TrustSet', Account: issuer.classicAddress, LimitAmount: { currency: 'USD', issuer: h.classicAddress, value: '0' }, Flags: flags }, issuer);
    expect(resultOf(await authorize(h1, 0x00010000))).toBe('tesSUCCESS');
    expect(resultOf(await authorize(h2, 0x00010000))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(issuer, h1.classicAddress, usd('100') as never), issuer))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h1, h2.classicAddress, usd('30') as never), h1))).toBe('tesSUCCESS');
    expect(resultOf(await authorize(h1, 0x00100000))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h1, h2.classicAddress, usd('5') as never), h1))).toBe('tecPATH_DRY');
    expect(resultOf(await L.send(pay(h1, issuer.classicAddress, usd('5') as never), h1))).toBe('tesSUCCESS');

    expect(resultOf(await L.send({ TransactionType: 'AccountSet', Account: guarded.classicAddress, SetFlag: 9 }, guarded))).toBe('tesSUCCESS');
    expect(resultOf(await L.send(pay(h2, guarded.classicAddress, '2000000'), h2))).toBe('tecNO_PERMISSION');
  });
});
