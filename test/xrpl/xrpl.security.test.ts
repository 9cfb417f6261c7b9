import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';
import { clientFor, createXrplHarness, fundedWallet, send, signMessage, userWithToken, walletServices } from './xrpl.fixture.js';

let h: Harness;
let userId: string;
/** Another tenant's signer wallet and secure account. */
let foreignSigner: string;
let foreignSecure: string;
const anyAddress = Wallet.generate().classicAddress;

beforeAll(async () => {
  h = await createXrplHarness();
  userId = await h.createUser();
  const other = await h.newTenant();
  const otherUser = await h.createUser(other);
  const otherHeaders = h.bearerHeaders(await h.tokenFor(otherUser, other), other);
  foreignSigner = (await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers: otherHeaders, payload: {} })).json().address;
  const account = await fundedWallet(h);
  const regular = Wallet.generate();
  const client = await clientFor(h);
  await send(client, { TransactionType: 'SetRegularKey', Account: account.classicAddress, RegularKey: regular.classicAddress }, account);
  await client.disconnect();
  const challenge = (await h.inject({ method: 'GET', url: '/non-custodian-xrpl/challenge', headers: otherHeaders })).json();
  const registered = await h.inject({
    method: 'POST',
    url: '/xrpl-secure-accounts',
    headers: otherHeaders,
    payload: { address: account.classicAddress, challenge: challenge.challenge, signatures: [{ publicKey: regular.publicKey, signature: signMessage(regular, challenge.message) }] },
  });
  expect(registered.statusCode).toBe(201);
  foreignSecure = account.classicAddress;
});
afterAll(async () => h.close());

const accepts = { apiKey: true, bearer: 'user' } as const;
const nonce = 'ab'.repeat(16);
const sig = { publicKey: '02' + 'ab'.repeat(32), signature: 'ab'.repeat(70) };

routeCases(() => h, 'POST /xrpl-secure-accounts', { url: () => '/xrpl-secure-accounts', payload: () => ({ userId, address: anyAddress, challenge: nonce, signatures: [sig] }), accepts });
routeCases(() => h, 'GET /xrpl-secure-accounts', { url: () => `/xrpl-secure-accounts?userId=${userId}`, accepts });
routeCases(() => h, 'GET /xrpl-secure-accounts/{address}', {
  url: () => `/xrpl-secure-accounts/${anyAddress}?userId=${userId}`,
  accepts,
  foreign: () => `/xrpl-secure-accounts/${foreignSecure}?userId=${userId}`,
});
routeCases(() => h, 'GET /non-custodian-xrpl/challenge', { url: () => `/non-custodian-xrpl/challenge?userId=${userId}`, accepts });
routeCases(() => h, 'POST /non-custodian-xrpl/wallet/investor', { url: () => '/non-custodian-xrpl/wallet/investor', payload: () => ({ userId }), accepts });
routeCases(() => h, 'POST /non-custodian-xrpl/wallet/signer-wallet', { url: () => '/non-custodian-xrpl/wallet/signer-wallet', payload: () => ({ userId }), accepts });
routeCases(() => h, 'POST /non-custodian-xrpl/wallet/challenge/{address}', {
  url: () => `/non-custodian-xrpl/wallet/challenge/${anyAddress}?userId=${userId}`,
  accepts,
  // Acting for another tenant's user (the owner of that tenant's wallet) is a 404.
  foreign: async () => {
    const other = await h.newTenant();
    return `/non-custodian-xrpl/wallet/challenge/${foreignSigner}?userId=${await h.createUser(other)}`;
  },
});
routeCases(() => h, 'POST /non-custodian-xrpl/wallet', {
  url: () => '/non-custodian-xrpl/wallet',
  payload: () => ({ userId, address: anyAddress, challenge: nonce, ...sig }),
  accepts,
});
routeCases(() => h, 'PUT /non-custodian-xrpl/wallet/update/{address}', {
  url: () => `/non-custodian-xrpl/wallet/update/${anyAddress}`,
  payload: () => ({ userId, rippling: true }),
  accepts,
  foreign: () => `/non-custodian-xrpl/wallet/update/${foreignSigner}`,
  unchanged: async () => {
    expect((await walletServices(h).xrplLedger.accountInfo(foreignSigner))?.flags.defaultRipple).toBe(false);
  },
});
routeCases(() => h, 'POST /non-custodian-xrpl/sign', { url: () => '/non-custodian-xrpl/sign', payload: () => ({ userId, address: anyAddress, message: 'hi' }), accepts });
routeCases(() => h, 'POST /non-custodian-xrpl/sign-transaction', {
  url: () => '/non-custodian-xrpl/sign-transaction',
  payload: () => ({ userId, transaction: { TransactionType: 'Payment', Account: anyAddress, Destination: foreignSigner, Amount: '1000000' } }),
  accepts,
});
routeCases(() => h, 'POST /non-custodian-xrpl/tx-submit', { url: () => '/non-custodian-xrpl/tx-submit', payload: () => ({ userId, txBlob: '1200' }), accepts });
routeCases(() => h, 'GET /non-custodian-xrpl/wallets', { url: () => `/non-custodian-xrpl/wallets?userId=${userId}`, accepts });

describe("another tenant's or user's XRPL wallets", () => {
  it('the service never signs, submits or reveals for a wallet of another tenant or user', async () => {
    const { headers } = await userWithToken(h);
    const payment = { TransactionType: 'Payment', Account: foreignSigner, Destination: anyAddress, Amount: '1000000' };
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign-transaction', headers, payload: { transaction: payment } }), 404, 'WALLET_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign', headers, payload: { address: foreignSigner, message: 'x' } }), 404, 'WALLET_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/xrpl-secure-accounts/${foreignSecure}`, headers }), 404, 'XRPL_SECURE_ACCOUNT_NOT_FOUND');

    // A blob signed for another user's account (here: signed correctly by that account's own key) is refused before sending.
    const owner = await userWithToken(h);
    const signer = (await h.inject({ method: 'POST', url: '/non-custodian-xrpl/wallet/signer-wallet', headers: owner.headers, payload: {} })).json();
    const prepared = (
      await h.inject({ method: 'POST', url: '/non-custodian-xrpl/sign-transaction', headers: owner.headers, payload: { transaction: { ...payment, Account: signer.address } } })
    ).json();
    expectError(await h.inject({ method: 'POST', url: '/non-custodian-xrpl/tx-submit', headers, payload: { txBlob: prepared.txBlob } }), 400, 'XRPL_BLOB_FOREIGN_ACCOUNT');
    const found = await walletServices(h).xrplLedger.lookupTransaction(prepared.hash);
    expect(found.found).toBe(false);
  });
});
