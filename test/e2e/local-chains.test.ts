import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Client, Wallet } from 'xrpl';
import { createHarness, type Harness } from '../helpers/harness.js';
import { compileWallets } from '../wallets/contracts.js';
import { signIn } from '../wallets/siwe.js';

/**
 * The local chains as an integrator reaches them: the URLs GET /ready names, the unmodified
 * viem client and xrpl Client, the dev accounts file and the faucet, as the README says.
 */
let h: Harness;
let ready: { checks: { evmChain: { rpcUrl: string; chainId: number }; xrplLedger: { mode: string; url: string; faucetUrl: string } } };

beforeAll(async () => {
  h = await createHarness();
  // What `npm start` does before it listens (the harness uses port 0 for both chains).
  await h.container.listen();
  ready = (await h.inject({ method: 'GET', url: '/ready' })).json();
});
afterAll(async () => h?.close());

describe('local chains', () => {
  it('GET /ready names a loopback JSON-RPC URL and a loopback XRPL WebSocket, and the start log names them', () => {
    expect(ready.checks.evmChain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.checks.xrplLedger).toMatchObject({ mode: 'stand-in', url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/), faucetUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/accounts$/) });
    const line = h.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.evmRpcUrl);
    expect(line).toMatchObject({ evmRpcUrl: ready.checks.evmChain.rpcUrl, xrplUrl: ready.checks.xrplLedger.url, xrplFaucetUrl: ready.checks.xrplLedger.faucetUrl });
  });

  it('viem over the JSON-RPC URL: a dev account funds a new address, its balance reads back, and the service sees the same chain', async () => {
    const chain = defineChain({ id: ready.checks.evmChain.chainId, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [ready.checks.evmChain.rpcUrl] } } });
    const devKey = (JSON.parse(readFileSync(join(h.dataDir, 'evm-dev-accounts.json'), 'utf8')) as { accounts: Array<{ privateKey: Hex }> }).accounts[0]!.privateKey;
    const wallet = createWalletClient({ account: privateKeyToAccount(devKey), chain, transport: http() });
    const client = createPublicClient({ chain, transport: http() });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.5') });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await client.getBalance({ address: to })).toBe(parseEther('1.5'));
    expect(await client.getChainId()).toBe(31337);
    // The service's own clients read the same chain (one chain, one journal).
    const services = h.container.modules.find((m) => m.name === 'chains')!.services as { evmChain: () => Promise<{ publicClient: { getBalance(a: { address: Hex }): Promise<bigint> } }> };
    expect(await (await services.evmChain()).publicClient.getBalance({ address: to })).toBe(parseEther('1.5'));
    // The transfer was journaled before it was answered.
    expect(readFileSync(join(h.dataDir, 'evm-local-chain.journal'), 'utf8')).toContain('"method":"eth_sendRawTransaction"');
  });

  it('an EIP-1271 wallet deployed through the JSON-RPC URL registers with POST /evm-eoas', async () => {
    const chain = defineChain({ id: 31337, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [ready.checks.evmChain.rpcUrl] } } });
    const devKey = (JSON.parse(readFileSync(join(h.dataDir, 'evm-dev-accounts.json'), 'utf8')) as { accounts: Array<{ privateKey: Hex }> }).accounts[1]!.privateKey;
    const { wallet: compiled } = compileWallets();
    const owner = privateKeyToAccount(generatePrivateKey());
    const hash = await createWalletClient({ account: privateKeyToAccount(devKey), chain, transport: http() }).deployContract({ abi: compiled.abi, bytecode: compiled.bytecode, args: [owner.address] });
    const contract = getAddress((await createPublicClient({ chain, transport: http() }).waitForTransactionReceipt({ hash })).contractAddress!);
    const userId = await h.createUser();
    const res = await signIn(h, await h.tokenFor(userId), owner, { address: contract });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ userId, address: contract, details: { signer: 'contract' } });
  });

  it('answers standard JSON-RPC: batches, net_ and web3_ methods, errors with their codes', async () => {
    const res = await fetch(ready.checks.evmChain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'net_version', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'web3_clientVersion', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 4, method: 'no_suchMethod', params: [] },
        { id: 5, method: 'eth_blockNumber' },
      ]),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const answers = (await res.json()) as Array<{ id: number; result?: unknown; error?: { code: number } }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[0]!.result).toBe('31337');
    expect(answers[1]!.result).toEqual(expect.any(String));
    expect(answers[2]!.result).toMatch(/^0x[0-9a-f]+$/);
    // EDR answers an unknown method as Hardhat does.
    expect(answers[3]!.error).toMatchObject({ code: -32004, message: expect.stringContaining('no_suchMethod') });
    expect(answers[4]!.error?.code).toBe(-32600);
    const parse = await fetch(ready.checks.evmChain.rpcUrl, { method: 'POST', body: '{not json' });
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect((await fetch(ready.checks.evmChain.rpcUrl)).status).toBe(405);
    // A notification (no id) runs and is not answered.
    const notified = await fetch(ready.checks.evmChain.rpcUrl, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }) });
    expect(notified.status).toBe(204);
    const mixed = await fetch(ready.checks.evmChain.rpcUrl, { method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', method: 'eth_chainId' }, { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' }]) });
    expect(await mixed.json()).toEqual([{ jsonrpc: '2.0', id: 'a', result: '0x7a69' }]);
  });

  it('the xrpl Client over the WebSocket URL: the faucet funds a new account and its balance reads back', async () => {
    const account = Wallet.generate();
    const res = await fetch(ready.checks.xrplLedger.faucetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ destination: account.classicAddress, xrpAmount: '250' }) });
    expect(res.status).toBe(200);
    const client = new Client(ready.checks.xrplLedger.url);
    await client.connect();
    try {
      // The faucet's payment is final once a ledger closes (every second on the stand-in).
      await expect.poll(async () => client.getXrpBalance(account.classicAddress).catch(() => 0), { timeout: 5000, interval: 100 }).toBe(250);
    } finally {
      await client.disconnect();
    }
  });
});

describe('local chain ports', () => {
  it('a port in use stops the start with an error naming the variable', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    try {
      for (const variable of ['EVM_LOCAL_RPC_PORT', 'XRPL_LOCAL_PORT']) {
        const other = await createHarness({ env: { [variable]: port } });
        try {
          await expect(other.container.listen()).rejects.toThrow(new RegExp(`^${variable}: port ${port} on 127\\.0\\.0\\.1 is in use`));
        } finally {
          await other.close();
        }
      }
    } finally {
      taken.close();
    }
  });

  it('EVM_LOCAL_RPC_PORT=off serves no JSON-RPC; sandboxes off serve no local chain', async () => {
    const off = await createHarness({ env: { EVM_LOCAL_RPC_PORT: 'off' } });
    try {
      await off.container.listen();
      const body = (await off.inject({ method: 'GET', url: '/ready' })).json() as { checks: { evmChain: Record<string, unknown>; xrplLedger: Record<string, unknown> } };
      expect(body.checks.evmChain.mode).toBe('local');
      expect(body.checks.evmChain).not.toHaveProperty('rpcUrl');
      expect(body.checks.xrplLedger).toMatchObject({ mode: 'stand-in', url: expect.any(String) });
    } finally {
      await off.close();
    }
    const noSandboxes = await createHarness({ env: { SANDBOXES: 'off' } });
    try {
      await noSandboxes.container.listen();
      const body = (await noSandboxes.inject({ method: 'GET', url: '/ready' })).json() as { checks: { evmChain: Record<string, unknown>; xrplLedger: Record<string, unknown> } };
      expect(body.checks.evmChain).not.toHaveProperty('rpcUrl');
      expect(body.checks.xrplLedger).toEqual({ mode: 'none' });
    } finally {
      await noSandboxes.close();
    }
  });
});
