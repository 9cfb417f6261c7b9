import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyXrplMessage } from '../../src/providers/xrpl-ledger/signatures.js';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/modules/audit/table.js';
import type { Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';
import { createXrplHarness, overHttp, signMessage, userWithToken, walletServices } from './xrpl.fixture.js';

/** The journey runs over real HTTP on loopback. */
const web = (options: Parameters<typeof overHttp>[1]) => overHttp(h, options);

let h: Harness;
beforeAll(async () => {
  h = await createXrplHarness({ listen: true });
});
afterAll(async () => h.close());

describe('the non-custodial journey over real HTTP: investor, signer and cold wallets, multi-signature, a Payment', () => {
  it('creates the wallets, registers a cold wallet, sets up the multi-signature and validates a multi-signed Payment', async () => {
    const { userId, headers } = await userWithToken(h);
    const investorRes = await web({ method: 'POST', url: '/non-custodian-xrpl/wallet/investor', headers, payload: {} });
    expect(investorRes.statusCode).toBe(201);
    const investor = investorRes.json();
    expect(investor).toMatchObject({ kind: 'xrpl-investor', chain: 'xrpl', network: 'local', userId, account: { exists: true, balanceDrops: '100000000' } });
    expect(JSON.stringify(investor)).not.toMatch(/seed|privateKey|sealed/i);
    // A repeat answers the same wallet.
    expect((await web({ method: 'POST', url: '/non-custodian-xrpl/wallet/investor', headers, payload: {} })).json().walletId).toBe(investor.walletId);

    const signer = (await web({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers, payload: {} })).json();
    expect(signer).toMatchObject({ kind: 'xrpl-signer', details: { keyHolder: 'service' } });

    const cold = Wallet.generate();
    const challengeRes = await web({ method: 'POST', url: `/non-custodian-xrpl/wallet/challenge/${cold.classicAddress}`, headers });
    expect(challengeRes.statusCode).toBe(201);
    const challenge = challengeRes.json();
    expect(challenge.message).toContain(cold.classicAddress);
    const coldRes = await web({
      method: 'POST',
      url: '/non-custodian-xrpl/wallet',
      headers,
      payload: { address: cold.classicAddress, publicKey: cold.publicKey, signature: signMessage(cold, challenge.message), challenge: challenge.challenge },
    });
    expect(coldRes.statusCode).toBe(201);
    expect(coldRes.json()).toMatchObject({ kind: 'xrpl-cold', address: cold.classicAddress, details: { proof: 'master', keyHolder: 'user' }, account: { exists: false } });

    // Rippling on, through an AccountSet the service signs and follows until validated.
    const rippling = await web({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${investor.address}`, headers, payload: { rippling: true } });
    expect(rippling.statusCode).toBe(200);
    expect(rippling.json().transactions).toEqual([expect.objectContaining({ transactionType: 'AccountSet', status: 'validated', result: 'tesSUCCESS', validated: true })]);
    expect(rippling.json().wallet.account.flags.defaultRipple).toBe(true);

    const multi = await web({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${investor.address}`, headers, payload: { multiSignature: true } });
    expect(multi.statusCode).toBe(200);
    expect(multi.json().transactions.map((t: { transactionType: string; result: string }) => `${t.transactionType}:${t.result}`)).toEqual(['SignerListSet:tesSUCCESS', 'AccountSet:tesSUCCESS']);
    const account = multi.json().wallet.account;
    expect(account.flags.disableMaster).toBe(true);
    expect(account.signerList.quorum).toBe(2);
    expect(account.signerList.signers.map((s: { account: string }) => s.account).sort()).toEqual([signer.address, cold.classicAddress].sort());

    // The service alone can no longer change the investor account.
    expectError(await web({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${investor.address}`, headers, payload: { rippling: false } }), 409, 'XRPL_COLD_SIGNATURE_REQUIRED');

    const destination = Wallet.generate().classicAddress;
    const prepared = await web({
      method: 'POST',
      url: '/non-custodian-xrpl/sign-transaction',
      headers,
      payload: { transaction: { TransactionType: 'Payment', Account: investor.address, Destination: destination, Amount: '20000000' } },
    });
    expect(prepared.statusCode).toBe(201);
    const body = prepared.json();
    expect(body).toMatchObject({ complete: false, hash: null, signaturesRequired: [{ account: cold.classicAddress, multisign: true }] });
    expect(Number(body.transaction.Fee)).toBeGreaterThanOrEqual(30); // at least base fee x (1 + 2 signers)

    // Only the service's signature: the ledger refuses it (tefBAD_QUORUM), as rippled would.
    const alone = await web({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlob: body.txBlob } });
    expectError(alone, 409, 'XRPL_TRANSACTION_REFUSED');
    expect(alone.json().message).toContain('tefBAD_QUORUM');

    const coldSigned = cold.sign(body.transaction, true);
    const submitted = await web({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlobs: [body.txBlob, coldSigned.tx_blob] } });
    expect(submitted.statusCode).toBe(201);
    expect(submitted.json()).toMatchObject({ account: investor.address, transactionType: 'Payment', status: 'validated', result: 'tesSUCCESS', validated: true });
    const ledger = walletServices(h).xrplLedger;
    expect((await ledger.accountInfo(destination))?.balanceDrops).toBe('20000000');

    // The same blob again answers the same tracked transaction.
    const again = await web({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlobs: [body.txBlob, coldSigned.tx_blob] } });
    expect(again.json().submissionId).toBe(submitted.json().submissionId);

    const listed = (await web({ method: 'GET', url: '/non-custodian-xrpl/wallets', headers })).json();
    expect(listed.investor.address).toBe(investor.address);
    expect(listed.signer.address).toBe(signer.address);
    expect(listed.cold.map((w: { address: string }) => w.address)).toEqual([cold.classicAddress]);

    // The investor account is the profile's XRPL address.
    const addresses = (await web({ method: 'GET', url: `/users/wallet-addresses/${userId}`, headers: h.keyHeaders() })).json();
    expect(addresses.xrpl).toBe(investor.address);
  });

  it('signs and submits for the signer wallet alone; the testing-only route signs a message that verifies', async () => {
    const { headers, userId } = await userWithToken(h);
    const signer = (await web({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers, payload: {} })).json();
    const prepared = (
      await web({
        method: 'POST',
        url: '/non-custodian-xrpl/sign-transaction',
        headers,
        payload: { transaction: { TransactionType: 'Payment', Account: signer.address, Destination: Wallet.generate().classicAddress, Amount: '15000000' } },
      })
    ).json();
    expect(prepared).toMatchObject({ complete: true, hash: expect.stringMatching(/^[0-9A-F]{64}$/), signaturesRequired: [] });
    const submitted = await web({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlob: prepared.txBlob } });
    expect(submitted.json()).toMatchObject({ hash: prepared.hash, status: 'validated', result: 'tesSUCCESS' });
    // As custody-a's transfers: transfer.submitted then transfer.completed in the outbox, and their audit rows.
    const ofThis = (rows: { payload: unknown }[]) => rows.map((r) => r.payload as Record<string, unknown>).filter((p) => p.hash === prepared.hash);
    expect(ofThis(await outbox(h, undefined, 'transfer.submitted'))).toEqual([
      expect.objectContaining({ kind: 'xrpl-submission', submissionId: submitted.json().submissionId, userId, account: signer.address, actor: { type: 'user', id: userId } }),
    ]);
    expect(ofThis(await outbox(h, undefined, 'transfer.completed'))).toEqual([expect.objectContaining({ kind: 'xrpl-submission', status: 'validated', result: 'tesSUCCESS' })]);
    expect(ofThis(await outbox(h, undefined, 'transfer.failed'))).toEqual([]);
    const audit = await h.database.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, h.tenant.tenantId), eq(auditEvents.subjectUserId, userId)));
    const auditOfThis = audit.filter((a) => (a.details as Record<string, unknown>).submissionId === submitted.json().submissionId);
    expect(auditOfThis.map((a) => [a.type, a.actorType]).sort()).toEqual([['transfer.submitted', 'user'], ['transfer.updated', 'system']]);

    const signed = await web({ method: 'POST', url: '/non-custodian-xrpl/sign', headers, payload: { address: signer.address, message: 'hello' } });
    expect(signed.statusCode).toBe(201);
    expect(await verifyXrplMessage({ address: signer.address, message: 'hello', signature: signed.json().signature, publicKey: signed.json().publicKey })).toEqual({ valid: true, keyKind: 'master' });
  });

  it('serializes concurrent submissions of one account: both validate with consecutive sequences', async () => {
    const { headers } = await userWithToken(h);
    const signer = (await web({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers, payload: {} })).json();
    const url = `/non-custodian-xrpl/wallet/update/${signer.address}`;
    const [a, b, c] = await Promise.all([
      web({ method: 'PUT', url, headers, payload: { rippling: true } }),
      web({ method: 'PUT', url, headers, payload: { requireDestinationTag: true } }),
      web({ method: 'PUT', url, headers, payload: { depositAuth: true } }),
    ]);
    const txs = [a, b, c].map((r) => r.json().transactions[0]);
    expect(txs.map((t) => t.result)).toEqual(['tesSUCCESS', 'tesSUCCESS', 'tesSUCCESS']);
    const sequences = txs.map((t) => t.sequence).sort((x, y) => x - y);
    expect(new Set(sequences).size).toBe(3);
    expect(sequences[2] - sequences[0]).toBe(2);
    const flags = (await walletServices(h).xrplLedger.accountInfo(signer.address))!.flags;
    expect(flags).toMatchObject({ defaultRipple: true, requireDestTag: true, depositAuth: true });
  });
});
