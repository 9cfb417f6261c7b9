import { decode, encode } from 'ripple-binary-codec';
import { loadConfig } from '../../src/config.js';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { createXrplHarness, signMessage, userWithToken, walletServices } from './xrpl.fixture.js';

let h: Harness;
let headers: Record<string, string>;
let signer: { address: string };
beforeAll(async () => {
  h = await createXrplHarness();
  ({ headers } = await userWithToken(h));
  signer = (await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers, payload: {} })).json();
});
afterAll(async () => h.close());

/** A valid-looking address whose checksum is wrong (last character changed). */
const badChecksum = (address: string) => address.slice(0, -1) + (address.endsWith('a') ? 'b' : 'a');

describe('malformed addresses, challenges and signatures', () => {
  it('400 ADDRESS_INVALID for an address whose checksum is wrong, everywhere', async () => {
    const bad = badChecksum(Wallet.generate().classicAddress);
    expectError(await h.inject({ method: 'POST', url: `/non-custodian-xrpl/wallet/challenge/${bad}`, headers }), 400, 'ADDRESS_INVALID');
    expectError(await h.inject({ method: 'GET', url: `/xrpl-secure-accounts/${bad}`, headers }), 400, 'ADDRESS_INVALID');
    expectError(await h.inject({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${bad}`, headers, payload: { rippling: true } }), 400, 'ADDRESS_INVALID');
    const payment = { TransactionType: 'Payment', Account: signer.address, Destination: bad, Amount: '1000000' };
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign-transaction', headers, payload: { transaction: payment } }), 400, 'ADDRESS_INVALID');
  });

  it('cold wallet registration: a wrong signature, a challenge for another address, a reused or unknown challenge', async () => {
    const cold = Wallet.generate();
    const challenge = (await h.inject({ method: 'POST', url: `/non-custodian-xrpl/wallet/challenge/${cold.classicAddress}`, headers })).json();
    const body = (over: Record<string, unknown> = {}) => ({ address: cold.classicAddress, publicKey: cold.publicKey, signature: signMessage(cold, challenge.message), challenge: challenge.challenge, ...over });
    const stranger = Wallet.generate();
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body({ signature: signMessage(stranger, challenge.message) }) }), 400, 'SIGNATURE_INVALID');
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body({ signature: signMessage(cold, 'something else') }) }), 400, 'SIGNATURE_INVALID');
    expectError(
      await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body({ address: stranger.classicAddress, publicKey: stranger.publicKey, signature: signMessage(stranger, challenge.message) }) }),
      400,
      'CHALLENGE_MISMATCH',
    );
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body({ challenge: 'cd'.repeat(16) }) }), 400, 'CHALLENGE_UNKNOWN');
    // Another user cannot spend this user's challenge.
    const other = await userWithToken(h);
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers: other.headers, payload: body() }), 400, 'CHALLENGE_UNKNOWN');
    expect((await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body() })).statusCode).toBe(201);
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers, payload: body() }), 400, 'CHALLENGE_USED');
  });

  it('an expired challenge is refused', async () => {
    const cold = Wallet.generate();
    const challenge = (await h.inject({ method: 'GET', url: '/non-custodian-xrpl/challenge', headers })).json();
    h.clock.advance(11 * 60_000);
    const res = await h.inject({
      method: 'POST',
      url: '/non-custodian-xrpl/wallet',
      headers,
      payload: { address: cold.classicAddress, publicKey: cold.publicKey, signature: signMessage(cold, challenge.message), challenge: challenge.challenge },
    });
    expectError(res, 400, 'CHALLENGE_EXPIRED');
  });
});

describe("a user's XRPL lists by API key: an unknown user and a user with none", () => {
  it('404 USER_NOT_FOUND for a user the tenant does not have (or another tenant\'s); an empty page for a user with no wallet', async () => {
    const empty = await h.createUser();
    const other = await h.newTenant();
    const foreignUser = await h.createUser(other);
    for (const list of ['/xrpl-secure-accounts', '/non-custodian-xrpl/wallets']) {
      for (const unknown of ['0190a7a0-0000-7000-8000-00000000fe11', foreignUser]) {
        expectError(await h.inject({ method: 'GET', url: `${list}?userId=${unknown}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
      }
      const res = await h.inject({ method: 'GET', url: `${list}?userId=${empty}`, headers: h.keyHeaders() });
      expect([list, res.statusCode]).toEqual([list, 200]);
      // The secure accounts are a page; the non-custodial wallets are the user's wallet of each role.
      expect(res.json()).toMatchObject(list === '/xrpl-secure-accounts' ? { total: 0, data: [] } : { investor: null, signer: null });
    }
  });
});

describe('transactions and blobs: 400 before anything reaches the ledger', () => {
  const prepare = async (transaction: Record<string, unknown>) => h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign-transaction', headers, payload: { transaction } });

  it('amounts that are not positive whole drops; unknown types; fields the service fills', async () => {
    const to = Wallet.generate().classicAddress;
    for (const Amount of ['0', '-5', '1.5', '01', 'abc', '100000000000000001', 12]) {
      expectError(await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount }), 400, 'AMOUNT_INVALID');
    }
    expectError(await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: { currency: 'USD', issuer: to, value: '-1' } }), 400, 'AMOUNT_INVALID');
    expectError(await prepare({ TransactionType: 'AccountDelete', Account: signer.address, Destination: to }), 400, 'TRANSACTION_INVALID');
    expectError(await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: '1', Sequence: 5 }), 400, 'TRANSACTION_INVALID');
  });

  it('blobs that do not decode, are unsigned, carry a wrong signature, or have no LastLedgerSequence', async () => {
    const submit = (payload: Record<string, unknown>) => h.inject({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload });
    expectError(await submit({ txBlob: 'ABCDEF' }), 400, 'XRPL_BLOB_INVALID');
    expectError(await submit({ txBlob: 'A1' }), 400, 'XRPL_BLOB_INVALID');
    expectError(await submit({}), 400, 'XRPL_BLOB_INVALID');
    const to = Wallet.generate().classicAddress;
    const prepared = (await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: '1000000' })).json();
    const unsigned = encode({ ...prepared.transaction, SigningPubKey: '' });
    expectError(await submit({ txBlob: unsigned }), 400, 'XRPL_BLOB_INVALID');
    // The same transaction, its amount changed after signing: the signature no longer verifies.
    const signed = decode(prepared.txBlob) as Record<string, unknown>;
    expectError(await submit({ txBlob: encode({ ...signed, Amount: '9000000' }) }), 400, 'XRPL_BLOB_SIGNATURE_INVALID');
    // No LastLedgerSequence: signed by the signer's own key, but it could never be known to have failed.
    const { wallets } = walletServices(h);
    const row = await wallets.findByAddress(h.tenant.tenantId, { chain: 'xrpl', network: 'local' }, signer.address);
    const userRow = row!;
    const seed = await wallets.withPrivateKey(userRow.tenantId, userRow.id, async (s) => s);
    const { LastLedgerSequence: _lls, ...rest } = prepared.transaction;
    expectError(await submit({ txBlob: Wallet.fromSeed(seed).sign(rest).tx_blob }), 400, 'XRPL_BLOB_NO_LAST_LEDGER');
    expect((await walletServices(h).xrplLedger.accountInfo(to))).toBeNull();
  });

  it('a transaction with a stale sequence is reported (tefPAST_SEQ), never lost', async () => {
    const to = Wallet.generate().classicAddress;
    const first = (await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: '20000000' })).json();
    const second = (await prepare({ TransactionType: 'Payment', Account: signer.address, Destination: to, Amount: '21000000' })).json();
    expect(second.transaction.Sequence).toBe(first.transaction.Sequence);
    const ok = await h.inject({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlob: first.txBlob } });
    expect(ok.json()).toMatchObject({ status: 'validated', result: 'tesSUCCESS' });
    const stale = await h.inject({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlob: second.txBlob } });
    expectError(stale, 409, 'XRPL_TRANSACTION_REFUSED');
    expect(stale.json().message).toContain('tefPAST_SEQ');
  });
});

describe('settings and the testing-only route', () => {
  it('400 for an empty update, 409 for multiSignature without signer and cold wallets, 409 for a cold wallet', async () => {
    const { headers: own } = await userWithToken(h);
    const investor = (await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet/investor', headers: own, payload: {} })).json();
    expectError(await h.inject({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${investor.address}`, headers: own, payload: {} }), 400, 'XRPL_SETTINGS_EMPTY');
    expectError(await h.inject({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${investor.address}`, headers: own, payload: { multiSignature: true } }), 409, 'XRPL_MULTISIG_PREREQUISITES');
    const cold = Wallet.generate();
    const challenge = (await h.inject({ method: 'POST', url: `/non-custodian-xrpl/wallet/challenge/${cold.classicAddress}`, headers: own })).json();
    const payload = { address: cold.classicAddress, publicKey: cold.publicKey, signature: signMessage(cold, challenge.message), challenge: challenge.challenge };
    expect((await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet', headers: own, payload })).statusCode).toBe(201);
    expectError(await h.inject({ method: 'PUT', url: `/non-custodian-xrpl/wallet/update/${cold.classicAddress}`, headers: own, payload: { rippling: true } }), 400, 'XRPL_ACCOUNT_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign', headers: own, payload: { address: cold.classicAddress, message: 'x' } }), 409, 'XRPL_NO_SERVICE_KEY');
  });

  it('XRPL_TEST_SIGNING: on by default with sandboxes, off in production, and refused there when turned on', () => {
    const base = { DATA_DIR: h.dataDir, MASTER_KEY: '5e'.repeat(32) };
    expect(loadConfig(base).xrplTestSigning).toBe(true);
    expect(loadConfig({ ...base, XRPL_TEST_SIGNING: 'off' }).xrplTestSigning).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).xrplTestSigning).toBe(false);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', SANDBOXES: 'on', XRPL_TEST_SIGNING: 'on' })).toThrow(/XRPL_TEST_SIGNING/);
  });
});
