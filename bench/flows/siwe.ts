// SIWE registration of an EVM EOA: GET /evm-eoas/challenge?address= (bearer), the wallet
// signs the EIP-4361 message (a fresh key each time, as a new wallet would), POST /evm-eoas
// answers 201. One operation = challenge, signature and registration. The wallets' keys exist
// before the row (a wallet is made before it registers): making one costs 0.3 ms of the
// client's CPU, on the cores the service runs on.
// Ceiling: viem's verifySiweMessage alone, in this process, over a local EVM chain of its own
// (the same in-process EDR chain the service verifies through: the ERC-6492 eth_call included),
// with the same number in flight, on messages signed beforehand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, verifySiweMessage } from 'viem/siwe';
import { createLocalEvmChain } from '../../src/providers/evm-chain/local/edr.js';
import { closedLoop, type FlowOp } from './driver.js';
import { call, type Caller } from './http.js';

interface ChallengeAnswer {
  message: string | null;
}

/** One registration by the user of `token`, for a new key (made here unless given). */
export async function registerEoa(caller: Caller, token: string, account = privateKeyToAccount(generatePrivateKey())): Promise<void> {
  const challenge = await call<ChallengeAnswer>(caller, 'GET', `/evm-eoas/challenge?address=${account.address}`, { bearer: token });
  if (!challenge.message) throw new Error('the challenge names no message');
  const signature = await account.signMessage({ message: challenge.message });
  await call(caller, 'POST', '/evm-eoas', { bearer: token, json: { message: challenge.message, signature } });
}

/**
 * Worker w's registrations go to the users w, w + N, w + 2N, ... of `users` in turn (a user may
 * ask for 30 challenges in 10 minutes; the load spreads over all of them), each with a key of
 * its own: `accounts` made beforehand, then one made per registration.
 */
function registrations<U>(users: U[], concurrency: number, accounts: number): (worker: number) => { user: U; account: PrivateKeyAccount } {
  const turn = new Array<number>(concurrency).fill(0);
  const perWorker = Math.max(1, Math.floor(users.length / concurrency));
  const made = Array.from({ length: accounts }, () => privateKeyToAccount(generatePrivateKey()));
  return (worker) => {
    const round = turn[worker] ?? 0;
    turn[worker] = round + 1;
    return { user: users[(worker + concurrency * (round % perWorker)) % users.length]!, account: made.pop() ?? privateKeyToAccount(generatePrivateKey()) };
  };
}

/** The row's operation: a registration by the next bearer user of the worker's turn. */
export function siweOp(caller: Caller, tokens: string[], concurrency: number, accounts = 8_000): FlowOp {
  const next = registrations(tokens, concurrency, accounts);
  return async (worker) => {
    const { user: token, account } = next(worker);
    await registerEoa(caller, token, account);
  };
}

/**
 * The bound's operation (BENCH_SIWE_BOUND on the ceiling server, bench/ceiling-server.ts): the
 * same challenge, signature by a new key and registration, against bare routes doing the least a
 * registration needs, for the users in the same turns as the row's.
 */
export function siweBoundOp(baseUrl: string, userIds: string[], concurrency: number, accounts = 8_000): FlowOp {
  const caller: Caller = { baseUrl, tenantId: 'bound' };
  const next = registrations(userIds, concurrency, accounts);
  return async (worker) => {
    const { user: userId, account } = next(worker);
    const { message } = await call<{ message: string }>(caller, 'GET', `/siwe/challenge?userId=${userId}&address=${account.address}`);
    const signature = await account.signMessage({ message });
    await call(caller, 'POST', '/siwe/register', { json: { userId, message, signature } });
  };
}

/** verifySiweMessage alone: `concurrency` loops over signed messages, against a local chain in this process. */
export async function siweCeiling(options: { concurrency: number; warmupSec: number; durationSec: number; chainId: number; origin: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'bastion-bench-siwe-'));
  const chain = await createLocalEvmChain({ chainId: options.chainId, dataDir: dir });
  try {
    const domain = new URL(options.origin).host;
    const issuedAt = new Date();
    const expirationTime = new Date(issuedAt.getTime() + 3_600_000);
    const signed: Array<{ message: string; signature: Hex; nonce: string }> = [];
    for (let i = 0; i < 256; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const nonce = generatePrivateKey().slice(2, 34);
      const message = createSiweMessage({
        address: account.address, chainId: options.chainId, domain, nonce, uri: options.origin, version: '1', issuedAt, expirationTime,
        statement: 'Register this address as my wallet.',
      });
      signed.push({ message, signature: await account.signMessage({ message }), nonce });
    }
    let next = 0;
    return await closedLoop(
      async () => {
        const one = signed[next++ % signed.length]!;
        const ok = await verifySiweMessage(chain.publicClient, { message: one.message, signature: one.signature, domain, nonce: one.nonce, time: new Date() });
        if (!ok) throw new Error('verifySiweMessage answered false');
      },
      options,
    );
  } finally {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
