import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';
import { createXrplHarness, userWithToken, walletServices } from './xrpl.fixture.js';

/**
 * The two XRPL routes that take an optional Idempotency-Key (the spec names none for them):
 * POST /non-custodian-xrpl/tx-submit and PUT /non-custodian-xrpl/wallet/update/{address}. The
 * same key and body answer the first answer again without a second effect; the same key with
 * another body is 409; a refusal before anything is sent (400) leaves the key free.
 */
let h: Harness;
beforeAll(async () => {
  h = await createXrplHarness();
});
afterAll(async () => h.close());

const ledger = () => walletServices(h).xrplLedger;
const submittedFor = async (hash: string) =>
  (await outbox(h, undefined, 'transfer.submitted')).map((r) => r.payload as Record<string, unknown>).filter((p) => p.hash === hash);

describe('POST /non-custodian-xrpl/tx-submit with an Idempotency-Key', () => {
  it('a 400 leaves the key free; the same key and blob answer the first answer once sent; another blob under it is 409 and is not sent', async () => {
    const { headers } = await userWithToken(h);
    const signer = (await h.api(headers).POST('/non-custodian-xrpl/wallet/signer-wallet', { body: {} })).data!;
    const to = Wallet.generate().classicAddress;
    const prepare = async (amount: string) => {
      const res = await h.api(headers).POST('/non-custodian-xrpl/sign-transaction', {
        body: { transaction: { TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: amount } },
      });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
      return res.data!;
    };
    const keyed = { ...headers, 'idempotency-key': 'xrpl-submit-1' };
    // Raw: a replay is checked byte for byte against the first answer.
    const submit = (payload: object) => h.inject({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers: keyed, payload });

    // Refused before anything is stored or sent: the key stays free.
    expectError(await submit({ txBlob: 'ABCD' }), 400, 'XRPL_BLOB_INVALID');

    const first = await prepare('15000000');
    const sent = await submit({ txBlob: first.txBlob });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.headers['idempotent-replayed']).toBeUndefined();
    expect(sent.json()).toMatchObject({ hash: first.hash, status: 'validated', result: 'tesSUCCESS' });

    const again = await submit({ txBlob: first.txBlob });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(sent.body);
    expect(await submittedFor(first.hash!)).toHaveLength(1);
    expect((await ledger().accountInfo(to))?.balanceDrops).toBe('15000000');

    const second = await prepare('16000000');
    expectError(await submit({ txBlob: second.txBlob }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await submittedFor(second.hash!)).toEqual([]);
    expect((await ledger().accountInfo(to))?.balanceDrops).toBe('15000000');
  });
});

describe('PUT /non-custodian-xrpl/wallet/update/{address} with an Idempotency-Key', () => {
  it('a 400 leaves the key free; the same key and body answer the first AccountSet again without a second one; another body under it is 409 and changes nothing', async () => {
    const { headers } = await userWithToken(h);
    const signer = (await h.api(headers).POST('/non-custodian-xrpl/wallet/signer-wallet', { body: {} })).data!;
    const url = `/non-custodian-xrpl/wallet/update/${signer.address}`;
    const keyed = { ...headers, 'idempotency-key': 'xrpl-update-1' };
    // Raw: a replay is checked byte for byte against the first answer.
    const put = (payload: object) => h.inject({ method: 'PUT', url, headers: keyed, payload });

    expectError(await put({}), 400, 'XRPL_SETTINGS_EMPTY');

    const first = await put({ rippling: true });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().transactions).toEqual([expect.objectContaining({ transactionType: 'AccountSet', status: 'validated', result: 'tesSUCCESS' })]);
    const sequence = (await ledger().accountInfo(signer.address))!.sequence;

    const again = await put({ rippling: true });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await ledger().accountInfo(signer.address))!.sequence).toBe(sequence);

    expectError(await put({ requireDestinationTag: true }), 409, 'IDEMPOTENCY_KEY_REUSED');
    const info = (await ledger().accountInfo(signer.address))!;
    expect(info.sequence).toBe(sequence);
    expect(info.flags).toMatchObject({ defaultRipple: true, requireDestTag: false });

    // Without a key the request runs again: the flag is already on, so no transaction this time.
    const unkeyed = await h.api(headers).PUT('/non-custodian-xrpl/wallet/update/{address}', { params: { path: { address: signer.address } }, body: { rippling: true } });
    expect(unkeyed.response.status, JSON.stringify(unkeyed.error)).toBe(200);
    expect(unkeyed.response.headers.get('idempotent-replayed')).toBeNull();
    expect(unkeyed.data!.transactions).toEqual([]);
  });
});
