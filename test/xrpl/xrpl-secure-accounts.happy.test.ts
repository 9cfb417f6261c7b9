import type { Client } from 'xrpl';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { clientFor, createXrplHarness, fundedWallet, send, signMessage, userWithToken } from './xrpl.fixture.js';

let h: Harness;
let client: Client;
beforeAll(async () => {
  h = await createXrplHarness();
  client = await clientFor(h);
});
afterAll(async () => {
  await client?.disconnect();
  await h?.close();
});

const challengeOf = async (headers: Record<string, string>, address?: string) =>
  address
    ? (await h.api(headers).POST('/non-custodian-xrpl/wallet/challenge/{address}', { params: { path: { address } } })).data!
    : (await h.api(headers).GET('/non-custodian-xrpl/challenge')).data!;

describe('POST /xrpl-secure-accounts (accounts set up with the unmodified xrpl Client)', () => {
  it('registers a multi-signed account (master disabled) by signers meeting the quorum; lists it; the profile follows', async () => {
    const { userId, headers } = await userWithToken(h);
    const account = await fundedWallet(h);
    const [s1, s2, s3] = [Wallet.generate(), Wallet.generate(), Wallet.generate()];
    await send(
      client,
      {
        TransactionType: 'SignerListSet',
        Account: account.classicAddress,
        SignerQuorum: 3,
        SignerEntries: [
          { SignerEntry: { Account: s1.classicAddress, SignerWeight: 2 } },
          { SignerEntry: { Account: s2.classicAddress, SignerWeight: 1 } },
          { SignerEntry: { Account: s3.classicAddress, SignerWeight: 1 } },
        ],
      },
      account,
    );
    await send(client, { TransactionType: 'AccountSet', Account: account.classicAddress, SetFlag: 4 }, account);

    // The master key is disabled: its signature proves nothing.
    let challenge = await challengeOf(headers);
    const byMaster = { address: account.classicAddress, challenge: challenge.challenge, signatures: [{ publicKey: account.publicKey, signature: signMessage(account, challenge.message) }] };
    expectError(await h.inject({ method: 'POST', url: '/xrpl-secure-accounts', headers, payload: byMaster }), 400, 'SIGNATURE_INVALID');
    // Weight 2 of 3: not enough.
    const sig = (w: Wallet) => ({ publicKey: w.publicKey, signature: signMessage(w, challenge.message) });
    const short = await h.inject({ method: 'POST', url: '/xrpl-secure-accounts', headers, payload: { address: account.classicAddress, challenge: challenge.challenge, signatures: [sig(s1), sig(s1)] } });
    expectError(short, 400, 'XRPL_QUORUM_NOT_MET');
    // A stranger's key is not a signer.
    const stranger = await h.inject({ method: 'POST', url: '/xrpl-secure-accounts', headers, payload: { address: account.classicAddress, challenge: challenge.challenge, signatures: [sig(Wallet.generate())] } });
    expectError(stranger, 400, 'SIGNATURE_INVALID');

    challenge = await challengeOf(headers, account.classicAddress);
    const created = await h.api(headers).POST('/xrpl-secure-accounts', { body: { address: account.classicAddress, challenge: challenge.challenge, signatures: [sig(s1), sig(s3)] } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(created.data).toMatchObject({ kind: 'xrpl-secure', address: account.classicAddress, userId, details: { proof: 'signers', multiSign: true, quorum: 3, masterDisabled: true } });
    // The challenge is single use.
    expectError(
      await h.inject({ method: 'POST', url: '/xrpl-secure-accounts', headers, payload: { address: account.classicAddress, challenge: challenge.challenge, signatures: [sig(s1), sig(s3)] } }),
      400,
      'CHALLENGE_USED',
    );

    const list = (await h.api(headers).GET('/xrpl-secure-accounts')).data;
    expect(list).toMatchObject({ total: 1, data: [{ address: account.classicAddress }] });
    const one = await h.api(headers).GET('/xrpl-secure-accounts/{address}', { params: { path: { address: account.classicAddress } } });
    expect(one.data!.walletId).toBe(created.data!.walletId);
    const byFilter = (await h.api(h.keyHeaders()).GET('/users', { params: { query: { xrplSecureAccountAddress: account.classicAddress } } })).data!;
    expect(byFilter.data.map((u) => u.id)).toEqual([userId]);
    // An API key reads it for the user.
    expect((await h.api(h.keyHeaders()).GET('/xrpl-secure-accounts', { params: { query: { userId } } })).data!.total).toBe(1);

    // Another user of the tenant: 404.
    const other = await userWithToken(h);
    expectError(await h.inject({ method: 'GET', url: `/xrpl-secure-accounts/${account.classicAddress}`, headers: other.headers }), 404, 'XRPL_SECURE_ACCOUNT_NOT_FOUND');
  });

  it('registers an account by its regular key; refuses an account with neither SignerList nor regular key', async () => {
    const { headers } = await userWithToken(h);
    const plain = await fundedWallet(h);
    let challenge = await challengeOf(headers);
    const sigOf = (w: Wallet) => [{ publicKey: w.publicKey, signature: signMessage(w, challenge.message) }];
    expectError(
      await h.inject({ method: 'POST', url: '/xrpl-secure-accounts', headers, payload: { address: plain.classicAddress, challenge: challenge.challenge, signatures: sigOf(plain) } }),
      400,
      'XRPL_ACCOUNT_NOT_SECURED',
    );
    const regular = Wallet.generate();
    await send(client, { TransactionType: 'SetRegularKey', Account: plain.classicAddress, RegularKey: regular.classicAddress }, plain);
    challenge = await challengeOf(headers);
    const res = await h.api(headers).POST('/xrpl-secure-accounts', { body: { address: plain.classicAddress, challenge: challenge.challenge, signatures: sigOf(regular) } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data!.details).toMatchObject({ proof: 'regular', regularKey: regular.classicAddress, multiSign: false });
  });
});
