import { eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallets as walletsTable } from '../../src/modules/wallets/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { getChallenge, messageFor, postEoa, walletsOf } from './siwe.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const registry = () => walletsOf(h).wallets;

describe('the wallet registry', () => {
  it('20 concurrent SIWE registrations of one address by 20 users: one owner, the rest 409, no 5xx', async () => {
    const shared = privateKeyToAccount(generatePrivateKey());
    const callers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const userId = await h.createUser();
        const token = await h.tokenFor(userId);
        const message = messageFor(await getChallenge(h, token), shared.address);
        return { userId, token, message, signature: await shared.signMessage({ message }) };
      }),
    );
    const results = await Promise.all(callers.map((c) => postEoa(h, c.token, { message: c.message, signature: c.signature })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('WALLET_ADDRESS_TAKEN');
    const winner = callers[statuses.indexOf(201)]!;
    const rows = await h.database.db.select().from(walletsTable).where(eq(walletsTable.addressKey, shared.address.toLowerCase()));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.userId).toBe(winner.userId);
    expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.address === shared.address)).toHaveLength(1);
  });

  it('20 concurrent registrations of one address by one user: one wallet, every answer the same', async () => {
    const userId = await h.createUser();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => registry().register(h.tenant.tenantId, userId, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address })),
    );
    expect(new Set(results.map((r) => r.wallet.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });

  it('compares EVM addresses in any case, stores EIP-55; XRPL addresses exactly; one owner per chain and network', async () => {
    const [a, b] = [await h.createUser(), await h.createUser()];
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await registry().register(h.tenant.tenantId, a, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: account.address.toLowerCase() });
    expect(first.wallet.address).toBe(account.address);
    const again = await registry().register(h.tenant.tenantId, a, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: account.address.toUpperCase().replace('0X', '0x') });
    expect(again).toMatchObject({ created: false, wallet: { id: first.wallet.id } });
    await expect(registry().register(h.tenant.tenantId, b, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: account.address })).rejects.toMatchObject({
      statusCode: 409,
      code: 'WALLET_ADDRESS_TAKEN',
    });
    // Another chain is another registry entry: the profile shows it as the further EVM-compatible address.
    const other = await registry().register(h.tenant.tenantId, b, { kind: 'evm-eoa', chain: 'evm', chainId: 137, address: account.address });
    expect(other.created).toBe(true);
    expect((await h.api(h.keyHeaders()).GET('/users/wallet-addresses/{userId}', { params: { path: { userId: b } } })).data).toEqual({
      evm: null,
      evmCompatible: account.address,
      xrpl: null,
    });
    // XRPL: base58 is case-sensitive; the profile's XRPL address is set.
    const xrpl = await registry().register(h.tenant.tenantId, a, { kind: 'xrpl-investor', chain: 'xrpl', network: 'local', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' });
    expect(xrpl.wallet).toMatchObject({ address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', addressKey: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', network: 'local' });
    expect((await h.api(h.keyHeaders()).GET('/users/wallet-addresses/{userId}', { params: { path: { userId: a } } })).data).toEqual({
      evm: account.address,
      evmCompatible: null,
      xrpl: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    });
  });

  it('finds by walletId and by address (any case), and lists by user and kind', async () => {
    const userId = await h.createUser();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const { wallet } = await registry().register(h.tenant.tenantId, userId, { kind: 'evm-vault', chain: 'evm', chainId: 31337, address, vaultId: 'vault-1', provider: 'custody-a', providerRef: 'ref-1' });
    expect(await registry().findById(h.tenant.tenantId, wallet.id)).toMatchObject({ id: wallet.id, vaultId: 'vault-1', provider: 'custody-a', providerRef: 'ref-1' });
    expect((await registry().findByAddress(h.tenant.tenantId, { chain: 'evm', chainId: 31337 }, address.toLowerCase()))?.id).toBe(wallet.id);
    expect(await registry().findByAddress(h.tenant.tenantId, { chain: 'evm', chainId: 1 }, address)).toBeUndefined();
    const other = await h.newTenant();
    expect(await registry().findById(other.tenantId, wallet.id)).toBeUndefined();
    const page = await registry().listByUser(h.tenant.tenantId, userId, { kind: 'evm-vault' }, { limit: 20, offset: 0 });
    expect(page).toMatchObject({ total: 1, data: [{ walletId: wallet.id, kind: 'evm-vault', vaultId: 'vault-1' }] });
    expect((await registry().listByUser(h.tenant.tenantId, userId, { kind: 'evm-eoa' }, { limit: 20, offset: 0 })).total).toBe(0);
    // An evm-vault is not the user's EOA: the profile's evmEoa stays empty.
    expect((await h.container.users.findRow(h.tenant.tenantId, userId))?.evmEoa).toBeNull();
  });

  it('seals a private key it is given: never stored in clear, opened only inside withPrivateKey', async () => {
    const userId = await h.createUser();
    const key = generatePrivateKey();
    const { address } = privateKeyToAccount(key);
    const { wallet } = await registry().register(h.tenant.tenantId, userId, { kind: 'evm-vault', chain: 'evm', chainId: 31337, address, privateKey: key });
    const [row] = await h.database.db.select().from(walletsTable).where(eq(walletsTable.id, wallet.id));
    expect(row!.sealedKey).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(key.slice(2));
    expect(JSON.stringify(registry().toDto(row!))).not.toContain('sealed');
    const signed = await registry().withPrivateKey(h.tenant.tenantId, wallet.id, async (k) => privateKeyToAccount(k as `0x${string}`).address);
    expect(signed).toBe(address);
    const other = await h.newTenant();
    await expect(registry().withPrivateKey(other.tenantId, wallet.id, async () => 'x')).rejects.toMatchObject({ statusCode: 404 });
  });
});
