import { encode, Wallet, type Payment } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createWallet, registeredUser, signChallenge } from '../helpers/custody-b.js';
import { xrplLedger } from '../custody/helpers.js';

/** The XRPL stand-in closes a ledger every 150 ms. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true, xrpl: { standIn: { closeIntervalMs: 150 }, finalTimeoutMs: 8000 } });
}, 120_000);
afterAll(async () => h?.close());

const hex = (tx: Record<string, unknown>) => `0x${encode(tx as unknown as Payment)}`;

describe('custody-b XRPL wallets', () => {
  it('opens an XRPL wallet beside an EVM one, signs a raw Payment with the user action and submits it to the ledger', async () => {
    const user = await registeredUser(h, 'p256');
    const wallet = await createWallet(h, user, 'XrpLedgerTestnet');
    expect(wallet).toMatchObject({ kind: 'custody-b', chain: 'xrpl', network: 'local', details: { network: 'XrpLedgerTestnet' } });
    expect(wallet.address).toMatch(/^r[1-9A-HJ-NP-Za-km-z]{24,34}$/);
    const evm = await createWallet(h, user);
    const api = h.api(user.headers);
    const list = await api.GET('/custody-b/wallets');
    expect(list.data!.data.map((w) => w.walletId).sort()).toEqual([wallet.walletId, evm.walletId].sort());

    const ledger = xrplLedger(h);
    await ledger.fundAccount(wallet.address, '40');
    const destination = Wallet.generate().classicAddress;
    const payment: Payment = { TransactionType: 'Payment', Account: wallet.address, Destination: destination, Amount: '5000000' };
    const unsigned = hex(await ledger.autofill(payment));

    const params = { query: { address: wallet.address } };
    const challenge = await api.POST('/custody-b/raw-transaction/challenge', { params, body: { transaction: unsigned } });
    expect(challenge.response.status, JSON.stringify(challenge.error)).toBe(201);
    const done = await api.POST('/custody-b/raw-transaction/complete', {
      params,
      body: { transaction: unsigned, signedChallenge: signChallenge(user.cred, challenge.data!) },
    });
    expect(done.response.status, JSON.stringify(done.error)).toBe(201);
    expect(done.data).toMatchObject({ walletId: wallet.walletId, address: wallet.address, status: 'Broadcasted', txHash: expect.stringMatching(/^[0-9A-F]{64}$/) });

    // The hash is a real transaction of the wallet's account, signed by its key, validated.
    const final = await ledger.waitForFinal(done.data!.txHash, Number((await ledger.autofill(payment)).LastLedgerSequence), { timeoutMs: 8000 });
    expect(final).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
    expect((await ledger.accountInfo(destination))?.balanceDrops).toBe('5000000');
  }, 120_000);

  it("refuses another account's transaction, one without Sequence or Fee, a signed one, and EVM routes for the XRPL address; nothing is submitted", async () => {
    const user = await registeredUser(h, 'ed25519');
    const wallet = await createWallet(h, user, 'XrpLedger');
    const ledger = xrplLedger(h);
    await ledger.fundAccount(wallet.address, '40');
    const other = Wallet.generate();
    const base = { TransactionType: 'Payment', Destination: other.classicAddress, Amount: '1000000' };
    const url = `/custody-b/raw-transaction/challenge?address=${wallet.address}`;
    for (const [tx, reason] of [
      [{ ...base, Account: other.classicAddress, Sequence: 1, Fee: '12' }, /Account is not the wallet/],
      [{ ...base, Account: wallet.address, Fee: '12' }, /no Sequence/],
      [{ ...base, Account: wallet.address, Sequence: 1 }, /no Fee/],
      [{ ...base, Account: wallet.address, Sequence: 1, Fee: '12', SigningPubKey: '02'.padEnd(66, '1'), TxnSignature: 'AB'.repeat(70) }, /signed already/],
    ] as const) {
      const res = await h.inject({ method: 'POST', url, headers: user.headers, payload: { transaction: hex(tx) } });
      expectError(res, 400, 'TRANSACTION_INVALID');
      expect(res.json().message).toMatch(reason);
    }
    expectError(await h.inject({ method: 'POST', url, headers: user.headers, payload: { transaction: '0x1200' } }), 400, 'TRANSACTION_INVALID');
    // EIP-191 is for EVM wallets: an XRPL address is not one.
    expectError(await h.inject({ method: 'POST', url: '/custody-b/message/challenge', headers: user.headers, payload: { address: wallet.address, message: 'hi' } }), 400, 'VALIDATION_FAILED');
    // Another user's XRPL wallet is not found.
    const stranger = await registeredUser(h, 'p256');
    const payload = { transaction: hex({ ...base, Account: wallet.address, Sequence: 1, Fee: '12' }) };
    expectError(await h.inject({ method: 'POST', url, headers: stranger.headers, payload }), 404, 'WALLET_NOT_FOUND');

    // Well-formed, but the ledger refuses it (no fee): the provider answers 400, nothing applies.
    const unpaid = hex({ ...(await ledger.autofill({ ...base, Account: wallet.address } as Payment)), Fee: '0' });
    const challenge = await h.api(user.headers).POST('/custody-b/raw-transaction/challenge', { params: { query: { address: wallet.address } }, body: { transaction: unpaid } });
    expect(challenge.response.status).toBe(201);
    const refused = await h.inject({
      method: 'POST',
      url: `/custody-b/raw-transaction/complete?address=${wallet.address}`,
      headers: user.headers,
      payload: { transaction: unpaid, signedChallenge: signChallenge(user.cred, challenge.data!) },
    });
    expectError(refused, 400, 'CUSTODY_B_PROVIDER_REJECTED');
    expect(refused.json().message).toMatch(/not broadcast/);
    expect(await ledger.accountInfo(wallet.address)).toMatchObject({ balanceDrops: '40000000' });
    expect(await ledger.accountInfo(other.classicAddress)).toBeNull();
  }, 120_000);
});
