import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { flipFirstLetter, walletsOf } from './siwe.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const registry = () => walletsOf(h).wallets;

describe('the wallet registry refuses', () => {
  it('invalid addresses and networks (400), unknown or foreign users (404), writing nothing', async () => {
    const userId = await h.createUser();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const before = (await outbox(h, undefined, 'wallet.registered')).length;
    const cases: Array<[Parameters<ReturnType<typeof registry>['register']>[2], number, string]> = [
      [{ kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: '0x1234' }, 400, 'ADDRESS_INVALID'],
      // A mixed-case address with a wrong checksum is no address.
      [{ kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: flipFirstLetter(address) }, 400, 'ADDRESS_INVALID'],
      [{ kind: 'xrpl-investor', chain: 'xrpl', network: 'local', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTH' }, 400, 'ADDRESS_INVALID'],
      [{ kind: 'evm-eoa', chain: 'evm', chainId: 0, address }, 400, 'NETWORK_INVALID'],
      [{ kind: 'xrpl-investor', chain: 'xrpl', network: 'Main Net', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' }, 400, 'NETWORK_INVALID'],
    ];
    for (const [input, statusCode, code] of cases) {
      await expect(registry().register(h.tenant.tenantId, userId, input)).rejects.toMatchObject({ statusCode, code });
    }
    await expect(registry().register(h.tenant.tenantId, randomUUID(), { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address })).rejects.toMatchObject({
      statusCode: 404,
      code: 'USER_NOT_FOUND',
    });
    const other = await h.newTenant();
    await expect(registry().register(other.tenantId, userId, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address })).rejects.toMatchObject({
      statusCode: 404,
      code: 'USER_NOT_FOUND',
    });
    expect((await outbox(h, undefined, 'wallet.registered')).length).toBe(before);
    expect((await registry().listByUser(h.tenant.tenantId, userId, {}, { limit: 20, offset: 0 })).total).toBe(0);
    // The user is read with the registration's last statement: the 404 takes the wallet's insert back.
    expect(await registry().findByAddress(h.tenant.tenantId, { chain: 'evm', chainId: 31337 }, address)).toBeUndefined();
  });

  it('an unknown user is 404 whatever the kind, the address or the transaction given, and nothing stays', async () => {
    const owner = await h.createUser();
    const before = (await outbox(h, undefined, 'wallet.registered')).length;
    const cold = Wallet.generate().classicAddress;
    const unknown = randomUUID();
    const notFound = { statusCode: 404, code: 'USER_NOT_FOUND' };
    // A kind with no profile field (XRPL cold), alone and given the database rather than a transaction.
    await expect(registry().register(h.tenant.tenantId, unknown, { kind: 'xrpl-cold', chain: 'xrpl', network: 'local', address: cold })).rejects.toMatchObject(notFound);
    await expect(registry().register(h.tenant.tenantId, unknown, { kind: 'xrpl-cold', chain: 'xrpl', network: 'local', address: cold }, { db: h.database.db })).rejects.toMatchObject(notFound);
    expect(await registry().findByAddress(h.tenant.tenantId, { chain: 'xrpl', network: 'local' }, cold)).toBeUndefined();
    // Another user's address: the unknown user is told 404 first; a known one 409.
    const taken = privateKeyToAccount(generatePrivateKey()).address;
    await registry().register(h.tenant.tenantId, owner, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: taken });
    await expect(registry().register(h.tenant.tenantId, unknown, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: taken })).rejects.toMatchObject(notFound);
    await expect(registry().register(h.tenant.tenantId, await h.createUser(), { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address: taken })).rejects.toMatchObject({ statusCode: 409, code: 'WALLET_ADDRESS_TAKEN' });
    expect((await outbox(h, undefined, 'wallet.registered')).length).toBe(before + 1);
    expect((await registry().findByAddress(h.tenant.tenantId, { chain: 'evm', chainId: 31337 }, taken))?.userId).toBe(owner);
    // The users module's half refuses to run where a missing user could not take its writes back.
    await expect(h.container.users.writeForUser(h.tenant.tenantId, unknown, h.database.db, [])).rejects.toThrow(/transaction/);
    expect(await h.container.platform.tx((db) => h.container.users.writeForUser(h.tenant.tenantId, unknown, db, []))).toBeUndefined();
    expect(await h.container.platform.tx((db) => h.container.users.writeForUser(h.tenant.tenantId, owner, db, []))).toEqual({ linked: false });
  });

  it('a registration whose transaction fails leaves no wallet, event or profile change', async () => {
    const userId = await h.createUser();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await expect(
      h.container.platform.tx(async (db) => {
        await registry().register(h.tenant.tenantId, userId, { kind: 'evm-eoa', chain: 'evm', chainId: 31337, address }, { db });
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect(await registry().findByAddress(h.tenant.tenantId, { chain: 'evm', chainId: 31337 }, address)).toBeUndefined();
    expect((await h.container.users.findRow(h.tenant.tenantId, userId))?.evmEoa).toBeNull();
    expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.address === address)).toHaveLength(0);
  });
});
