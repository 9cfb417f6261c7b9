import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { createLocalEvmChain } from '../../src/providers/evm-chain/local/edr.js';
import { DEV_ACCOUNT_BALANCE, DEV_ACCOUNTS_FILE } from '../../src/providers/evm-chain/local/dev-accounts.js';
import { EVM_JOURNAL_FILE, type ChainReset } from '../../src/providers/evm-chain/local/journal.js';
import { chainDefinition } from '../../src/providers/evm-chain/clients.js';
import { JournalBusy } from '../../src/providers/write-ahead-journal.js';
import { createHarness } from '../helpers/harness.js';
import { kill9, startProcess } from './processes/spawn.js';

/** A crash image: the files of DATA_DIR as they are on disk now, copied while the chain runs on. */
function crashImage(dataDir: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'evm-crash-'));
  for (const name of [DEV_ACCOUNTS_FILE, EVM_JOURNAL_FILE]) if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(copy, name));
  return copy;
}

describe.skipIf(ONE_PASS_ONLY)('the local EVM chain: write-ahead journal', () => {
  it('a restart replays the journal: the same receipts in the same blocks, the same balances; the chain goes on from there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-wal-'));
    const first = await createLocalEvmChain({ chainId: 31337, dataDir });
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hashes: Hex[] = [];
    for (const value of [parseEther('1.5'), 7n]) hashes.push(await first.walletClient(first.devAccounts[0]!).sendTransaction({ to, value }));
    const receipts = await Promise.all(hashes.map((hash) => first.publicClient.getTransactionReceipt({ hash })));
    const head = await first.publicClient.getBlock();

    const secondDir = crashImage(dataDir);
    const second = await createLocalEvmChain({ chainId: 31337, dataDir: secondDir });
    try {
      for (const [i, hash] of hashes.entries()) {
        const receipt = await second.publicClient.getTransactionReceipt({ hash });
        expect(receipt).toMatchObject({ status: 'success', blockNumber: receipts[i]!.blockNumber, blockHash: receipts[i]!.blockHash });
      }
      expect((await second.publicClient.getBlock()).hash).toBe(head.hash);
      expect(await second.publicClient.getBalance({ address: to })).toBe(parseEther('1.5') + 7n);
      expect(await second.status()).toEqual({ mode: 'local', chainId: 31337, blockNumber: String(head.number) });
      const next = await second.walletClient(second.devAccounts[0]!).sendTransaction({ to, value: 1n });
      const mined = await second.publicClient.getBlock();
      expect(mined.number).toBe(head.number + 1n);
      expect(mined.timestamp).toBeGreaterThanOrEqual(BigInt(Math.floor(Date.now() / 1000) - 5)); // back on the wall clock
      await second.close();
      const third = await createLocalEvmChain({ chainId: 31337, dataDir: crashImage(secondDir) });
      expect((await third.publicClient.getTransactionReceipt({ hash: next })).blockHash).toBe(mined.hash);
      await third.close();
    } finally {
      await first.close();
    }
  });

  it('a journal that cannot be replayed starts an empty chain, moved aside and reported in status and onReset, also at later starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-wal-'));
    const first = await createLocalEvmChain({ chainId: 31337, dataDir });
    await first.walletClient(first.devAccounts[0]!).sendTransaction({ to: first.devAccounts[1]!.address, value: 1n });
    await first.close();
    const file = join(dataDir, EVM_JOURNAL_FILE);
    const lines = readFileSync(file, 'utf8').split('\n');
    // The transaction's recorded head no longer matches: as if another engine had written it.
    writeFileSync(file, [lines[0], lines[1]!.replace(/"hash":"0x[0-9a-f]{4}/, '"hash":"0x0000'), ''].join('\n'));
    const reported: ChainReset[] = [];
    const second = await createLocalEvmChain({ chainId: 31337, dataDir, onReset: (r) => reported.push(r), now: () => new Date('2026-01-02T03:04:05Z') });
    expect(reported).toEqual([expect.objectContaining({ at: '2026-01-02T03:04:05.000Z', lostBlockNumber: 1, reason: expect.stringMatching(/does not replay/) })]);
    expect(await second.status()).toMatchObject({ blockNumber: '0', resets: reported });
    expect(await second.publicClient.getBalance({ address: second.devAccounts[0]!.address })).toBe(DEV_ACCOUNT_BALANCE);
    expect(readdirSync(dataDir).some((n) => n.startsWith(`${EVM_JOURNAL_FILE}.reset-2026-01-02`))).toBe(true);
    await second.close();

    const third = await createLocalEvmChain({ chainId: 31337, dataDir, onReset: (r) => reported.push(r) });
    expect(reported).toHaveLength(1);
    expect((await third.status()).resets).toEqual([reported[0]]);
    await third.close();

    // A corrupt line and a changed chain id are resets too.
    appendFileSync(file, 'not json\n{"t":"call"}\n');
    const fourth = await createLocalEvmChain({ chainId: 31337, dataDir, onReset: (r) => reported.push(r) });
    expect(reported.at(-1)?.reason).toMatch(/corrupt/);
    await fourth.close();
    const fifth = await createLocalEvmChain({ chainId: 1337, dataDir, onReset: (r) => reported.push(r) });
    expect(reported.at(-1)?.reason).toMatch(/settings changed \(chainId\)/);
    expect((await fifth.status()).resets).toHaveLength(3);
    await fifth.close();
    // A call the engine refuses at replay (a block time before genesis) is a reset, not a chain that never starts.
    appendFileSync(file, JSON.stringify({ t: 'call', n: 1, method: 'evm_mine', params: [], timestamp: 1, head: { number: 1, hash: '0x00' } }) + '\n');
    const sixth = await createLocalEvmChain({ chainId: 1337, dataDir, onReset: (r) => reported.push(r) });
    expect(reported.at(-1)).toMatchObject({ reason: expect.stringMatching(/does not replay/), lostBlockNumber: 1 });
    expect((await sixth.status()).resets).toHaveLength(4);
    await sixth.close();
  });
});

describe.skipIf(ONE_PASS_ONLY)('the local EVM chain: where its journal lives', () => {
  it('another live process holding the journal of this DATA_DIR stops the chain from starting', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-wal-'));
    writeFileSync(join(dataDir, `${EVM_JOURNAL_FILE}.lock`), JSON.stringify({ pid: process.ppid }));
    await expect(createLocalEvmChain({ chainId: 31337, dataDir })).rejects.toThrow(JournalBusy);
    await expect(createLocalEvmChain({ chainId: 31337, dataDir })).rejects.toThrow(/each process needs its own DATA_DIR/);
  });

  it('GET /ready lists the reset and the service logs it', async () => {
    const h = await createHarness();
    try {
      writeFileSync(join(h.dataDir, EVM_JOURNAL_FILE), 'not a journal\n{}\n');
      const ready = await h.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks.evmChain).toMatchObject({ mode: 'local', blockNumber: '0', resets: [{ reason: expect.stringMatching(/corrupt/), lostBlockNumber: 0 }] });
      expect(h.logs.text()).toContain('the local EVM chain could not be replayed and started empty');
    } finally {
      await h.close();
    }
  });
});

describe.skipIf(ONE_PASS_ONLY)('the local EVM chain: a real process killed with SIGKILL', () => {
  const entry = 'test/providers/processes/evm-chain.ts';
  const chain = chainDefinition(31337, 'local');
  /** The funded development accounts the chain of `dataDir` made at its first start. */
  const devAccounts = (dataDir: string) =>
    (JSON.parse(readFileSync(join(dataDir, DEV_ACCOUNTS_FILE), 'utf8')).accounts as Array<{ privateKey: Hex }>).map((a) => privateKeyToAccount(a.privateKey));

  it('a confirmed transfer is readable by hash after the restart, in the same block, and the balances hold', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-kill-'));
    let proc = await startProcess(entry, { DATA_DIR: dataDir });
    try {
      const dev = devAccounts(dataDir)[0]!;
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const wallet = createWalletClient({ account: dev, chain, transport: http(proc.ready[0]) });
      let client = createPublicClient({ chain, transport: http(proc.ready[0]) });
      const hash = await wallet.sendTransaction({ to, value: parseEther('2') });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      const devBalance = await client.getBalance({ address: dev.address });
      await kill9(proc);

      proc = await startProcess(entry, { DATA_DIR: dataDir });
      client = createPublicClient({ chain, transport: http(proc.ready[0]) });
      expect(proc.output()).not.toContain('RESET');
      expect(await client.getTransactionReceipt({ hash })).toMatchObject({ status: 'success', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash });
      expect(await client.getBalance({ address: to })).toBe(parseEther('2'));
      expect(await client.getBalance({ address: dev.address })).toBe(devBalance);
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 90_000);

  it('transactions sent together share the journal flushes: every one answered survives a SIGKILL right after the answers', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'evm-kill-group-'));
    let proc = await startProcess(entry, { DATA_DIR: dataDir });
    try {
      const accounts = devAccounts(dataDir);
      expect(accounts.length).toBeGreaterThanOrEqual(4);
      const to = privateKeyToAccount(generatePrivateKey()).address;
      // Every account sends at once (an automining chain takes one nonce of an account at a time): no receipt awaited.
      const sends = accounts.map((account) => createWalletClient({ account, chain, transport: http(proc.ready[0]) }).sendTransaction({ to, value: 1000n, nonce: 0, gas: 21_000n }));
      const hashes = await Promise.all(sends);
      await kill9(proc);

      proc = await startProcess(entry, { DATA_DIR: dataDir });
      const client = createPublicClient({ chain, transport: http(proc.ready[0]) });
      expect(proc.output()).not.toContain('RESET');
      for (const hash of hashes) expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
      expect(await client.getBalance({ address: to })).toBe(1000n * BigInt(hashes.length));
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 90_000);
});
