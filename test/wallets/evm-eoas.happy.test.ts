import { and, eq } from 'drizzle-orm';
import { getAddress, getContractAddress, keccak256, serializeErc6492Signature, encodeDeployData, encodeFunctionData, toHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { wallets as walletsTable } from '../../src/modules/wallets/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { compileWallets, type Compiled } from './contracts.js';
import { getChallenge, messageFor, postEoa, signIn } from './siwe.js';

let h: Harness;
let contracts: { wallet: Compiled; factory: Compiled };
beforeAll(async () => {
  h = await createHarness();
  contracts = compileWallets();
});
afterAll(async () => h.close());

async function userWithToken() {
  const userId = await h.createUser();
  return { userId, token: await h.tokenFor(userId) };
}

describe('GET /evm-eoas/challenge', () => {
  it('answers a nonce and the EIP-4361 fields (domain of PUBLIC_BASE_URL, 10 minutes), and a message for an address', async () => {
    const { token } = await userWithToken();
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await h.api(h.bearerHeaders(token)).GET('/evm-eoas/challenge', { params: { query: { address: account.address.toLowerCase() } } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    const body = res.data!;
    expect(body).toMatchObject({
      domain: 'bastion.test',
      uri: 'http://bastion.test',
      version: '1',
      chainId: 31337,
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      issuedAt: h.clock.now().toISOString(),
      expirationTime: new Date(h.clock.now().getTime() + 600_000).toISOString(),
    });
    // The ready message names the checksummed address and every field above.
    expect(body.message).toContain(`bastion.test wants you to sign in with your Ethereum account:\n${account.address}\n`);
    expect(body.message).toContain(`Nonce: ${body.nonce}`);
    expect(body.message).toContain('Chain ID: 31337');
    // Stored only as a hash.
    const raw = await h.database.db.execute(`select nonce_hash from evm_siwe_nonces where nonce_hash = '${body.nonce}'` as never);
    expect(JSON.stringify(raw)).not.toContain(`"${body.nonce}"`);
  });

  it("uses the tenant's app host as the domain when the tenant has one", async () => {
    const tenant = await h.newTenant();
    await h.container.tenants.setAppUrl(tenant.tenantId, 'https://app.example.com:8443/invest');
    const userId = await h.createUser(tenant);
    const res = await h.api(h.bearerHeaders(await h.tokenFor(userId, tenant), tenant)).GET('/evm-eoas/challenge');
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ domain: 'app.example.com:8443', uri: 'https://app.example.com:8443/invest', message: null });
  });
});

describe('POST /evm-eoas', () => {
  it('registers a key signed in with SIWE: 201 wallet, profile, wallet addresses, users filter, outbox and audit', async () => {
    const { userId, token } = await userWithToken();
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await signIn(h, token, account);
    expect(res.statusCode, res.body).toBe(201);
    const wallet = res.json();
    expect(wallet).toMatchObject({
      walletId: expect.any(String),
      userId,
      kind: 'evm-eoa',
      chain: 'evm',
      network: '31337',
      chainId: 31337,
      address: account.address,
      vaultId: null,
      details: { signer: 'eoa' },
    });

    const profile = await h.api(h.bearerHeaders(token)).GET('/users/me');
    expect(profile.data).toMatchObject({ evmEoa: account.address, walletAddresses: { evm: account.address } });
    const addresses = await h.api(h.keyHeaders()).GET('/users/wallet-addresses/{userId}', { params: { path: { userId } } });
    expect(addresses.data).toEqual({ evm: account.address, evmCompatible: null, xrpl: null });
    const filtered = await h.api(h.keyHeaders()).GET('/users', { params: { query: { evmEoa: account.address.toLowerCase() } } });
    expect(filtered.data).toMatchObject({ total: 1, data: [{ id: userId, evmEoa: account.address }] });

    const events = (await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.walletId === wallet.walletId);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({ userId, kind: 'evm-eoa', chain: 'evm', network: '31337', address: account.address, actor: { type: 'user', id: userId } });
    const audit = await h.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, h.tenant.tenantId), eq(auditEvents.type, 'wallet.registered'), eq(auditEvents.subjectUserId, userId)));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'user', actorId: userId, details: { walletId: wallet.walletId, address: account.address } });
  });

  it('the same user registering the same address again gets the same wallet, with no second event', async () => {
    const { userId, token } = await userWithToken();
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await signIn(h, token, account);
    const second = await signIn(h, token, account);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().walletId).toBe(first.json().walletId);
    expect((await outbox(h, undefined, 'wallet.registered')).filter((e) => e.payload.userId === userId)).toHaveLength(1);
  });

  it('a second address is listed; the profile keeps the first', async () => {
    const { token } = await userWithToken();
    const a = privateKeyToAccount(generatePrivateKey());
    const b = privateKeyToAccount(generatePrivateKey());
    expect((await signIn(h, token, a)).statusCode).toBe(201);
    expect((await signIn(h, token, b)).statusCode).toBe(201);
    const profile = await h.api(h.bearerHeaders(token)).GET('/users/me');
    expect(profile.data!.evmEoa).toBe(a.address);
    const list = await h.api(h.bearerHeaders(token)).GET('/evm-eoas');
    expect(list.data).toMatchObject({ total: 2, data: [{ address: a.address }, { address: b.address }] });
  });

  it('registers a smart-contract wallet deployed on the local chain (EIP-1271)', async () => {
    const { userId, token } = await userWithToken();
    const chain = await h.container.platform.chains.evm();
    const deployer = chain.devAccounts[0]!;
    const owner = privateKeyToAccount(generatePrivateKey());
    const client = chain.walletClient(deployer);
    const hash = await client.deployContract({ abi: contracts.wallet.abi, bytecode: contracts.wallet.bytecode, args: [owner.address] });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const contractAddress = getAddress(receipt.contractAddress!);
    expect(await chain.publicClient.getCode({ address: contractAddress })).not.toBe('0x');

    // The owner's key signs the message that names the contract's address.
    const res = await signIn(h, token, owner, { address: contractAddress });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ userId, address: contractAddress, kind: 'evm-eoa', details: { signer: 'contract' } });

    // Another key's signature for the contract does not verify.
    const other = await userWithToken();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const refused = await signIn(h, other.token, stranger, { address: contractAddress });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('SIGNATURE_INVALID');
  });

  it('registers a smart-contract wallet not deployed yet (ERC-6492 signature through its factory)', async () => {
    const { token } = await userWithToken();
    const chain = await h.container.platform.chains.evm();
    const deployer = chain.devAccounts[1]!;
    const hash = await chain.walletClient(deployer).deployContract({ abi: contracts.factory.abi, bytecode: contracts.factory.bytecode });
    const factory = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!);
    const owner = privateKeyToAccount(generatePrivateKey());
    const salt = keccak256(toHex('bastion-6492'));
    const address: Address = getContractAddress({
      opcode: 'CREATE2',
      from: factory,
      salt,
      bytecode: encodeDeployData({ abi: contracts.wallet.abi, bytecode: contracts.wallet.bytecode, args: [owner.address] }),
    });
    expect(await chain.publicClient.getCode({ address })).toBeUndefined();

    const challenge = await getChallenge(h, token);
    const message = messageFor(challenge, address);
    const factoryData = encodeFunctionData({ abi: contracts.factory.abi, functionName: 'deploy', args: [owner.address, salt] });
    const signature = serializeErc6492Signature({ address: factory, data: factoryData, signature: await owner.signMessage({ message }) });
    const res = await postEoa(h, token, { message, signature });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ address, details: { signer: 'counterfactual' } });
  });

  it('stores the address once, checksummed, whatever case the message used', async () => {
    const { token } = await userWithToken();
    const account = privateKeyToAccount(generatePrivateKey());
    const res = await signIn(h, token, account, { address: account.address.toLowerCase() as Address });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await h.database.db.select().from(walletsTable).where(eq(walletsTable.id, res.json().walletId));
    expect(row).toMatchObject({ address: account.address, addressKey: account.address.toLowerCase(), sealedKey: null });
  });
});

describe('GET /evm-eoas', () => {
  it("answers the caller's EOAs; an API key or an admin names the user; paged", async () => {
    const { userId, token } = await userWithToken();
    const accounts = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
    for (const account of accounts) expect((await signIn(h, token, account)).statusCode).toBe(201);
    const admin = await h.createUser(undefined, undefined, 'admin');
    for (const headers of [h.bearerHeaders(token), h.keyHeaders(), h.bearerHeaders(await h.tokenFor(admin))]) {
      const query = headers['x-api-key'] || headers.authorization !== h.bearerHeaders(token).authorization ? { userId } : {};
      const res = await h.api(headers).GET('/evm-eoas', { params: { query } });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data).toMatchObject({ total: 3, data: accounts.map((a) => ({ address: a.address, userId })) });
    }
    const page = await h.api(h.keyHeaders()).GET('/evm-eoas', { params: { query: { userId, limit: 1, offset: 1 } } });
    expect(page.data).toMatchObject({ total: 3, data: [{ address: accounts[1]!.address }] });
    // A page past the end has no row to carry the total: it is counted on its own.
    const past = await h.api(h.keyHeaders()).GET('/evm-eoas', { params: { query: { userId, limit: 2, offset: 5 } } });
    expect(past.data).toEqual({ total: 3, data: [] });
    // A keyset page: the total is of the whole list, not of the rows after the cursor.
    const after = await h.api(h.keyHeaders()).GET('/evm-eoas', { params: { query: { userId, afterId: page.data!.data[0]!.walletId } } });
    expect(after.data).toMatchObject({ total: 3, data: [{ address: accounts[2]!.address }] });
    const empty = await userWithToken();
    expect((await h.api(h.bearerHeaders(empty.token)).GET('/evm-eoas')).data).toEqual({ total: 0, data: [] });
  });
});

describe('GET /ready', () => {
  it('reports the local chain', async () => {
    // /ready is outside the OpenAPI document.
    const res = await h.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', checks: { evmChain: { mode: 'local', chainId: 31337, blockNumber: expect.stringMatching(/^\d+$/) } } });
  });
});
