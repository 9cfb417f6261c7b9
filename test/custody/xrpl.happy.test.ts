import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, xrplLedger } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

describe('XRPL custody wallets at custody-a', () => {
  it('a new vault XRPL wallet is activated from the faucet on the sandbox and can send XRP at once', async () => {
    const userId = await h.createUser();
    const vault = await createVault(h, userId, { xrplWallet: true });
    const xrpl = vault.wallets.find((w) => w.chain === 'xrpl')!;
    const ledger = xrplLedger(h);
    expect((await ledger.accountInfo(xrpl.address))?.balanceDrops).toBe('10000000');
    const destination = Wallet.generate().classicAddress;
    const base = { vaultId: vault.id, walletId: xrpl.walletId };
    const sent = await h.api(h.keyHeaders()).POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', {
      params: { path: base, header: { 'idempotency-key': 'xrp-activated' } },
      body: { destinationAddress: destination, symbol: 'XRP', qty: '5' },
    });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(201);
    await drain(h);
    const read = await h.api(h.keyHeaders()).GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', {
      params: { path: { ...base, transactionId: sent.data!.transactionId } },
    });
    expect(read.data).toMatchObject({ status: 'CONFIRMED', symbol: 'XRP', qty: '5' });
    expect((await ledger.accountInfo(destination))?.balanceDrops).toBe('5000000');
  });

  it('sends XRP as a Payment on the ledger, and accountSet issues an AccountSet', async () => {
    const userId = await h.createUser();
    const vault = await createVault(h, userId, { xrplWallet: true });
    const xrpl = vault.wallets.find((w) => w.chain === 'xrpl')!;
    expect(xrpl.kind).toBe('custody-a');
    const ledger = xrplLedger(h);
    await ledger.fundAccount(xrpl.address, '100');
    const destination = Wallet.generate().classicAddress;
    await ledger.fundAccount(destination, '20');

    const base = { vaultId: vault.id, walletId: xrpl.walletId };
    const sent = await h.api(h.keyHeaders()).POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', {
      params: { path: base, header: { 'idempotency-key': 'xrp-1' } },
      body: { destinationAddress: destination, symbol: 'XRP', qty: '12.5' },
    });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(201);
    await drain(h);
    const read = await h.api(h.keyHeaders()).GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', {
      params: { path: { ...base, transactionId: sent.data!.transactionId } },
    });
    expect(read.data).toMatchObject({ status: 'CONFIRMED', symbol: 'XRP', qty: '12.5' });
    // The hash is typed nullable; a confirmed transfer has one.
    const hash = read.data!.hash;
    expect(hash).toEqual(expect.any(String));
    const onLedger = await ledger.lookupTransaction(hash!);
    expect(onLedger).toMatchObject({ validated: true, result: 'tesSUCCESS' });
    expect(onLedger.tx).toMatchObject({ TransactionType: 'Payment', Destination: destination });
    expect((await ledger.accountInfo(destination))?.balanceDrops).toBe('32500000');

    const updated = await h.api(h.keyHeaders()).PUT('/custody-a/vaults/{vaultId}/wallets/{walletId}', { params: { path: base }, body: { name: 'issuer', description: 'issuing account', accountSet: true } });
    expect(updated.response.status, JSON.stringify(updated.error)).toBe(200);
    expect(updated.data).toMatchObject({ name: 'issuer', description: 'issuing account', accountSet: { type: 'ACCOUNT_SET' } });
    await drain(h);
    const info = await ledger.accountInfo(xrpl.address);
    expect(info?.flags.defaultRipple).toBe(true);
  });
});
