import { parseEther, serializeTransaction, verifyMessage, verifyTypedData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { createWallet, registeredUser, signChallenge, TYPED_DATA } from '../helpers/custody-b.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
}, 120_000);
afterAll(async () => h?.close());

describe('custody-b end to end over real HTTP', () => {
  it('registers with a P-256 key, creates a wallet, signs EIP-191 and EIP-712, broadcasts a transaction', async () => {
    const user = await registeredUser(h, 'p256');
    const api = h.api(user.headers);
    const token = await api.GET('/custody-b/users/auth-token');
    expect(token.response.status).toBe(200);
    expect(token.data!.token).toEqual(expect.any(String));

    const wallet = await createWallet(h, user);
    expect(wallet).toMatchObject({ kind: 'custody-b', chain: 'evm', chainId: 31337, details: { network: 'EthereumSepolia' } });
    const list = await api.GET('/custody-b/wallets');
    expect(list.data).toMatchObject({ total: 1, data: [{ walletId: wallet.walletId, address: wallet.address }] });

    // EIP-191
    const message = 'I agree to the terms';
    const mc = await api.POST('/custody-b/message/challenge', { body: { address: wallet.address, message } });
    expect(mc.response.status).toBe(201);
    expect(mc.data!.request).toMatchObject({ method: 'POST', path: expect.stringMatching(/^\/wallets\/.+\/signatures$/) });
    const ms = await api.POST('/custody-b/message', { body: { address: wallet.address, message, signedChallenge: signChallenge(user.cred, mc.data!) } });
    expect(ms.response.status).toBe(201);
    const sig = ms.data!.signature;
    expect(sig).toMatchObject({ r: expect.stringMatching(/^0x/), s: expect.stringMatching(/^0x/), recid: expect.any(Number) });
    expect(await verifyMessage({ address: wallet.address, message, signature: sig.encoded as Hex })).toBe(true);

    // EIP-712
    const tc = await api.POST('/custody-b/message/eip712/challenge', { body: { address: wallet.address, typedData: TYPED_DATA } });
    expect(tc.response.status).toBe(201);
    // The same typed data with its members in another order is the same request.
    const reordered = { message: TYPED_DATA.message, primaryType: TYPED_DATA.primaryType, types: { Mail: TYPED_DATA.types.Mail, Person: TYPED_DATA.types.Person }, domain: TYPED_DATA.domain };
    const ts = await api.POST('/custody-b/message/eip712/sign', { body: { signedChallenge: signChallenge(user.cred, tc.data!), typedData: reordered, address: wallet.address } });
    expect(ts.response.status).toBe(201);
    expect(await verifyTypedData({ ...TYPED_DATA, address: wallet.address, signature: ts.data!.signature.encoded } as Parameters<typeof verifyTypedData>[0])).toBe(true);

    // A raw transaction: funded from a dev account, signed by the provider, broadcast to the local chain.
    const chain = await h.container.modules.find((m) => m.name === 'chains')!.services;
    const evm = await (chain as { evmChain: () => Promise<import('../../src/providers/evm-chain/port.js').EvmChainPort> }).evmChain();
    const funder = evm.walletClient(evm.devAccounts[0]!);
    await evm.publicClient.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: wallet.address, value: parseEther('1') }) });
    const block = await evm.publicClient.getBlock();
    const unsigned = serializeTransaction({
      type: 'eip1559',
      chainId: evm.chainId,
      nonce: 0,
      to: '0x000000000000000000000000000000000000bEEF',
      value: parseEther('0.25'),
      gas: 21_000n,
      maxFeePerGas: (block.baseFeePerGas ?? 1_000_000_000n) * 2n + 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const query = { address: wallet.address };
    const rc = await api.POST('/custody-b/raw-transaction/challenge', { params: { query }, body: { transaction: unsigned } });
    expect(rc.response.status).toBe(201);
    const completion = { transaction: unsigned, signedChallenge: signChallenge(user.cred, rc.data!) };
    const done = await api.POST('/custody-b/raw-transaction/complete', { params: { query, header: { 'idempotency-key': 'tx-1' } }, body: completion });
    expect(done.response.status).toBe(201);
    const txHash = done.data!.txHash as Hex;
    expect(done.data).toMatchObject({ walletId: wallet.walletId, status: 'Broadcasted', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const receipt = await evm.publicClient.waitForTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe('success');
    const tx = await evm.publicClient.getTransaction({ hash: txHash });
    expect(tx.from.toLowerCase()).toBe(wallet.address.toLowerCase());
    expect(tx.value).toBe(parseEther('0.25'));
    // A repeat with the same Idempotency-Key answers the first broadcast again (nothing sent twice).
    const repeat = await api.POST('/custody-b/raw-transaction/complete', { params: { query, header: { 'idempotency-key': 'tx-1' } }, body: completion });
    expect(repeat.response.status).toBe(201);
    expect(repeat.data).toEqual(done.data);
    expect(await evm.publicClient.getTransactionCount({ address: wallet.address })).toBe(1);

    // The acts at the provider are in the audit log.
    const audit = await h.api(h.keyHeaders()).GET('/audit-events', { params: { query: { userId: user.userId, limit: 100 } } });
    expect(audit.response.status).toBe(200);
    const types = audit.data!.data.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['custody_b.user_registered', 'wallet.registered', 'custody_b.signature', 'transfer.submitted']));
    // The broadcast is a transfer, as custody-a's: its transfer.submitted event names the wallet, the hash and the actor.
    const submittedEvents = (await outbox(h, undefined, 'transfer.submitted')).map((e) => e.payload as Record<string, unknown>).filter((p) => p.address === wallet.address);
    expect(submittedEvents).toEqual([expect.objectContaining({ kind: 'custody-b.broadcast', userId: user.userId, address: wallet.address, actor: { type: 'user', id: user.userId } })]);
  }, 120_000);

  it('registers with an Ed25519 key and signs with it', async () => {
    const user = await registeredUser(h, 'ed25519');
    const wallet = await createWallet(h, user, 'BaseSepolia');
    expect(wallet.details).toMatchObject({ network: 'BaseSepolia' });
    const api = h.api(user.headers);
    const mc = await api.POST('/custody-b/message/challenge', { body: { address: wallet.address, message: 'gm' } });
    const ms = await api.POST('/custody-b/message', { body: { address: wallet.address, message: 'gm', signedChallenge: signChallenge(user.cred, mc.data!) } });
    expect(ms.response.status).toBe(201);
    expect(await verifyMessage({ address: wallet.address, message: 'gm', signature: ms.data!.signature.encoded as Hex })).toBe(true);
  }, 60_000);
});
