// custody-a transfer to CONFIRMED, on the built-in custody-a sandbox over the service's local
// EVM chain. Each of N users gets a vault (POST /evm-vaults), funded with 1 ETH by the
// sandbox's faucet; an operation is POST .../transactions/transfer (0.0001 ETH, its own
// Idempotency-Key) and ends when Bastion's record of it says CONFIRMED (the sandbox signs,
// publishes and confirms it and tells Bastion by signed webhooks). The record is watched in
// the database every 10 ms (one query for every transfer in flight), so the watching adds no
// request to the service.
// Ceiling: a direct transaction on a local chain of the same engine and settings, served by the
// same JSON-RPC server, in a process of its own (bench/evm-chain-main.ts: the ceiling's ~8,000
// blocks would otherwise stay in the service's memory), through its JSON-RPC (viem: a local
// account signs, eth_sendRawTransaction, the receipt polled every 10 ms), with N accounts in flight.
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { closedLoop, type FlowOp } from './driver.js';
import { call, inParallel, type Caller } from './http.js';

const DESTINATION = '0x000000000000000000000000000000000000dEaD';
const FINAL_FAILED = new Set(['FAILED', 'REJECTED']);

export interface Vault {
  vaultId: string;
  walletId: string;
}

/** N vaults with an EVM wallet, one per user, each funded with 1 ETH by the sandbox's faucet. */
export async function prepareVaults(caller: Caller, apiKey: string, userIds: string[]): Promise<Vault[]> {
  return inParallel(userIds, 4, async (userId) => {
    const vault = await call<{ id: string; wallets: Array<{ walletId: string; chain: string }> }>(caller, 'POST', '/evm-vaults', { apiKey, json: { userId } });
    const wallet = vault.wallets.find((w) => w.chain === 'evm');
    if (!wallet) throw new Error('the vault has no EVM wallet');
    await call(caller, 'POST', `/sandbox/custody-a/vaults/${vault.id}/fund`, { apiKey, json: { symbol: 'ETH', qty: '1' }, expect: 200 }).catch(async (error: unknown) => {
      // The faucet answers 201 on some versions: accept either.
      if (!(error instanceof Error) || !/: 201 /.test(error.message)) throw error;
    });
    return { vaultId: vault.id, walletId: wallet.walletId };
  });
}

/** Where a watcher reads the records: the service's (custody_transactions, in the tenant) or the bound's (bench/custody-bound.ts). */
export type WatchedRecords = { table: 'custody_transactions'; tenantId: string } | { table: 'bench_bound_custody_tx' };

/** Watches the records: one SELECT every 10 ms for every transaction awaited. */
export function confirmationWatcher(databaseUrl: string, records: WatchedRecords) {
  const [text, values] =
    records.table === 'custody_transactions'
      ? ['select id, status, failure_reason from custody_transactions where tenant_id = $1 and id = any($2::uuid[])', (ids: string[]) => [records.tenantId, ids]]
      : ['select id, status, null as failure_reason from bench_bound_custody_tx where id = any($1::uuid[])', (ids: string[]) => [ids]];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      if (waiting.size > 0) {
        const ids = [...waiting.keys()];
        const { rows } = await pool.query<{ id: string; status: string; failure_reason: string | null }>(text, values(ids));
        for (const row of rows) {
          const waiter = waiting.get(row.id);
          if (!waiter) continue;
          if (row.status === 'CONFIRMED') waiter.resolve();
          else if (FINAL_FAILED.has(row.status)) waiter.reject(new Error(`transfer ${row.status}: ${row.failure_reason ?? ''}`));
          else continue;
          waiting.delete(row.id);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    confirmed(id: string, timeoutMs = 30_000): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`transfer ${id} not CONFIRMED within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, {
          resolve: () => (clearTimeout(timer), resolve()),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
      });
    },
    async close() {
      stopped = true;
      await loop.catch(() => undefined);
      await pool.end();
    },
  };
}

/** The row's operation: worker w transfers from its vault and waits for CONFIRMED. */
export function transferOp(caller: Caller, apiKey: string, vaults: Vault[], watcher: ReturnType<typeof confirmationWatcher>): FlowOp {
  let n = 0;
  const run = `${Date.now().toString(36)}`;
  return async (worker) => {
    const { vaultId, walletId } = vaults[worker]!;
    const answer = await call<{ transactionId: string; status: string }>(caller, 'POST', `/custody-a/vaults/${vaultId}/wallets/${walletId}/transactions/transfer`, {
      apiKey,
      headers: { 'idempotency-key': `bench-${run}-${n++}` },
      json: { destinationAddress: DESTINATION, symbol: 'ETH', qty: '0.0001' },
    });
    if (answer.status !== 'CONFIRMED') await watcher.confirmed(answer.transactionId);
  };
}

/** The bound's source wallets, one per worker, funded on its own chain (bench/custody-bound.ts). */
export async function prepareBound(baseUrl: string, count: number): Promise<void> {
  await call({ baseUrl, tenantId: 'bound' }, 'POST', '/custody-bound/prepare', { json: { count }, expect: 200 });
}

/** The bound's operation: worker w transfers from its source and waits for CONFIRMED in the bound's record. */
export function boundTransferOp(baseUrl: string, watcher: ReturnType<typeof confirmationWatcher>): FlowOp {
  const caller: Caller = { baseUrl, tenantId: 'bound' };
  let n = 0;
  const run = `${Date.now().toString(36)}`;
  return async (worker) => {
    const answer = await call<{ transactionId: string; status: string }>(caller, 'POST', '/custody-bound/transfer', { json: { source: worker, key: `bound-${run}-${n++}` } });
    if (answer.status !== 'CONFIRMED') await watcher.confirmed(answer.transactionId);
  };
}

/** Direct transactions on a chain of the service's engine in a process of its own (bench/evm-chain-main.ts). */
export async function evmCeilingOwnChain(options: { chainId: number; concurrency: number; warmupSec: number; durationSec: number }) {
  const child = fork(new URL('../evm-chain-main.js', import.meta.url), [String(options.chainId)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const started = await new Promise<{ url: string; dataDir: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; dataDir: string }));
    child.once('exit', (code) => reject(new Error(`the ceiling's chain exited (${code}) before it listened`)));
  });
  try {
    return await evmCeiling({ rpcUrl: started.url, chainId: options.chainId, dataDir: started.dataDir, concurrency: options.concurrency, warmupSec: options.warmupSec, durationSec: options.durationSec });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
    rmSync(started.dataDir, { recursive: true, force: true });
  }
}

/** Direct transactions on the chain behind `rpcUrl`: N fresh accounts funded by a development account of `dataDir`. */
export async function evmCeiling(options: { rpcUrl: string; chainId: number; dataDir: string; concurrency: number; warmupSec: number; durationSec: number }) {
  const chain = defineChain({
    id: options.chainId,
    name: 'bench local chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 10 });
  const dev = JSON.parse(readFileSync(join(options.dataDir, 'evm-dev-accounts.json'), 'utf8')) as { accounts: Array<{ privateKey: Hex }> };
  const funder = createWalletClient({ chain, transport, account: privateKeyToAccount(dev.accounts[0]!.privateKey) });
  const accounts: PrivateKeyAccount[] = Array.from({ length: options.concurrency }, () => privateKeyToAccount(generatePrivateKey()));
  for (const account of accounts) {
    const hash = await funder.sendTransaction({ to: account.address, value: parseEther('1') });
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
  }
  const fees = await publicClient.estimateFeesPerGas();
  const clients = accounts.map((account) => createWalletClient({ chain, transport, account }));
  const nonces = accounts.map(() => 0);
  return closedLoop(
    async (worker) => {
      const hash = await clients[worker]!.sendTransaction({
        to: DESTINATION,
        value: 100_000_000_000_000n,
        nonce: nonces[worker]!,
        gas: 21_000n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      nonces[worker]!++;
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      if (receipt.status !== 'success') throw new Error(`transaction ${receipt.status}`);
    },
    options,
  );
}
