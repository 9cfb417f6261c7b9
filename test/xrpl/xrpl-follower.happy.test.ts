import { Wallet, type Payment } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/clock.js';
import { createXrplRepo } from '../../src/modules/xrpl/xrpl-repo.js';
import type { StandInServer } from '../../src/sandboxes/xrpl-ledger/server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { userWithToken, walletServices } from './xrpl.fixture.js';

/**
 * The follower: transactions still in flight that no request waits for (the request stopped
 * waiting, or the process stopped between storing and sending) are followed until final.
 * Here the stand-in closes ledgers only when the test says so, and requests wait 200 ms.
 */
let h: Harness;
let standIn: StandInServer;
beforeAll(async () => {
  h = await createHarness({ xrpl: { standIn: { closeIntervalMs: 0 }, finalTimeoutMs: 200 } });
  standIn = (await walletServices(h).xrplLedger.standIn())!;
});
afterAll(async () => h.close());

/** Runs `work` while ledgers close every 100 ms. */
async function whileClosing<T>(work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => standIn.closeLedger(), 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

const balanceOf = async (address: string) => (await walletServices(h).xrplLedger.accountInfo(address))?.balanceDrops;

describe('the XRPL follower', () => {
  it('validates a transaction its request stopped waiting for, at the next sweep; the same blob then answers it validated', async () => {
    const { headers } = await userWithToken(h);
    const api = h.api(headers);
    const signer = await whileClosing(async () => (await api.POST('/non-custodian-xrpl/wallet/signer-wallet', { body: {} })).data!);
    const destination = Wallet.generate().classicAddress;
    const prepared = (
      await api.POST('/non-custodian-xrpl/sign-transaction', {
        body: { transaction: { TransactionType: 'Payment', Account: signer.address, Destination: destination, Amount: '12000000' } },
      })
    ).data!;
    const txBlob = prepared.txBlob!;
    expect(txBlob).toMatch(/^[0-9A-F]+$/);

    // No ledger closes: the request answers what it knows after 200 ms.
    const submitted = await api.POST('/non-custodian-xrpl/tx-submit', { body: { txBlob } });
    expect(submitted.response.status).toBe(201);
    expect(submitted.data).toMatchObject({ hash: prepared.hash, status: 'submitted', engineResult: 'tesSUCCESS', validated: false, result: null });

    standIn.closeLedger();
    const submissions = walletServices(h).xrplSubmissions;
    expect(await submissions.sweep()).toBe(1);
    expect(await submissions.sweep()).toBe(0); // nothing left in flight
    expect(await balanceOf(destination)).toBe('12000000');

    const again = await api.POST('/non-custodian-xrpl/tx-submit', { body: { txBlob } });
    expect(again.data).toMatchObject({ submissionId: submitted.data!.submissionId, status: 'validated', result: 'tesSUCCESS', validated: true });
  });

  it('once started, sends what was stored but never sent (a stop between the two) and follows it until validated', async () => {
    const ledger = walletServices(h).xrplLedger;
    const payer = Wallet.generate();
    await whileClosing(() => ledger.fundAccount(payer.classicAddress, '30'));
    const destination = Wallet.generate().classicAddress;
    const payment: Payment = { TransactionType: 'Payment', Account: payer.classicAddress, Destination: destination, Amount: '7000000' };
    const filled = await ledger.autofill(payment);
    const signed = payer.sign(filled);

    // What a process that stopped right after storing leaves behind.
    const repo = createXrplRepo(h.container.db);
    const now = new Date();
    const { row } = await repo.insertSubmission(h.tenant.tenantId, {
      id: newId(),
      userId: null,
      network: 'local',
      hash: signed.hash,
      account: payer.classicAddress,
      transactionType: 'Payment',
      sequence: Number(filled.Sequence),
      lastLedgerSequence: Number(filled.LastLedgerSequence),
      txBlob: signed.tx_blob,
      status: 'submitted',
      engineResult: null,
      result: null,
      ledgerIndex: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
    });
    expect(await ledger.lookupTransaction(signed.hash)).toMatchObject({ found: false });

    h.container.start();
    const final = await whileClosing(async () => {
      for (let i = 0; i < 100; i++) {
        const current = await repo.findSubmissionByHash(h.tenant.tenantId, 'local', signed.hash);
        if (current?.status !== 'submitted') return current;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return undefined;
    });
    expect(final).toMatchObject({ id: row.id, status: 'validated', result: 'tesSUCCESS', engineResult: 'tesSUCCESS', attempts: 1 });
    expect(await balanceOf(destination)).toBe('7000000');
  });
});
