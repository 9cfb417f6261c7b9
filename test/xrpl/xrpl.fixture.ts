import { sign } from 'ripple-keypairs';
import { Client, Wallet, type SubmittableTransaction } from 'xrpl';
import type { ChainsServices } from '../../src/chains/index.js';
import type { WalletsServices } from '../../src/modules/wallets/module.js';
import type { XrplServices } from '../../src/modules/xrpl/module.js';
import { createHarness, type Harness, type HarnessOptions } from '../helpers/harness.js';

/** A harness whose XRPL stand-in closes a ledger every 150 ms (the xrpl Client's submitAndWait looks once a second, LastLedgerSequence is 20 ledgers ahead), and whose requests wait at most 8 s for finality. */
export async function createXrplHarness(options: HarnessOptions = {}): Promise<Harness> {
  return createHarness({ xrpl: { standIn: { closeIntervalMs: 150 }, finalTimeoutMs: 8000 }, ...options });
}

/** The services of the wallets and xrpl modules and the chains they use. */
export function walletServices(h: Harness): WalletsServices & XrplServices & ChainsServices {
  const of = (name: string) => h.container.modules.find((m) => m.name === name)!.services;
  return { ...of('wallets'), ...of('xrpl'), ...of('chains') } as WalletsServices & XrplServices & ChainsServices;
}

/** The unmodified xrpl Client, connected to the harness's stand-in. */
export async function clientFor(h: Harness): Promise<Client> {
  const standIn = await walletServices(h).xrplLedger.standIn();
  const client = new Client(standIn!.url);
  await client.connect();
  return client;
}

/** A new account funded from the stand-in's faucet. */
export async function fundedWallet(h: Harness, xrp = '50'): Promise<Wallet> {
  const wallet = Wallet.generate();
  await walletServices(h).xrplLedger.fundAccount(wallet.classicAddress, xrp);
  return wallet;
}

/** Sends with the unmodified Client's submitAndWait and checks tesSUCCESS. */
export async function send(client: Client, tx: SubmittableTransaction, wallet: Wallet): Promise<void> {
  const { result } = await client.submitAndWait(tx, { wallet, autofill: true });
  const outcome = (result.meta as { TransactionResult: string }).TransactionResult;
  if (outcome !== 'tesSUCCESS') throw new Error(`${tx.TransactionType} failed: ${outcome}`);
}

/** A ripple-keypairs signature of a message's UTF-8 bytes. */
export const signMessage = (wallet: Wallet, message: string) => sign(Buffer.from(message, 'utf8').toString('hex').toUpperCase(), wallet.privateKey);

export async function userWithToken(h: Harness) {
  const userId = await h.createUser();
  const token = await h.tokenFor(userId);
  return { userId, token, headers: h.bearerHeaders(token) };
}

/** A request over real HTTP to a harness created with `listen: true` (same shape as inject's answer). */
export async function overHttp(h: Harness, options: { method: string; url: string; headers?: Record<string, string>; payload?: unknown }) {
  const hasBody = options.payload !== undefined;
  const res = await fetch(h.baseUrl + options.url, {
    method: options.method,
    headers: { ...options.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: JSON.stringify(options.payload) } : {}),
  });
  const text = await res.text();
  return { statusCode: res.status, json: () => JSON.parse(text) };
}
