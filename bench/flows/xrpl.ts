// XRPL POST /non-custodian-xrpl/tx-submit to validation, on the ledger stand-in of the
// service. Each of N users registers a cold wallet (its key held here, as the user's device
// would), funded from the stand-in's faucet; an operation is a Payment of that account, signed
// here, submitted through Bastion and answered once validated (201, status validated,
// tesSUCCESS). One account per worker: its sequence advances one validated payment at a time.
// Ceiling: the xrpl Client submitting the same kind of payment straight to the stand-in and
// hearing of its validation from the `accounts` stream (the earliest a client can know), with
// the same N accounts in flight.
import { Buffer } from 'node:buffer';
import { sign as signMessage } from 'ripple-keypairs';
import { Client, Wallet, type Payment, type TransactionStream } from 'xrpl';
import { closedLoop, type FlowOp } from './driver.js';
import { call, inParallel, type Caller } from './http.js';

/** The stand-in's genesis account: an existing destination, so no payment creates an account. */
const DESTINATION = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh';
const AMOUNT_DROPS = '1000';

export interface XrplAccounts {
  client: Client;
  wallets: Wallet[];
  sequences: number[];
  /** The last closed ledger (from the ledger stream): LastLedgerSequence is 20 above it. */
  lastClosed: () => number;
  close(): Promise<void>;
}

/** Registers a cold wallet for the user of `token` (challenge, signature, POST); the key stays here. */
export async function registerCold(caller: Caller, token: string, wallet: Wallet = Wallet.generate()): Promise<Wallet> {
  const issued = await call<{ challenge: string; message: string }>(caller, 'POST', `/non-custodian-xrpl/wallet/challenge/${wallet.classicAddress}`, { bearer: token });
  const signature = signMessage(Buffer.from(issued.message, 'utf8').toString('hex'), wallet.privateKey);
  await call(caller, 'POST', '/non-custodian-xrpl/wallet', {
    bearer: token,
    json: { address: wallet.classicAddress, publicKey: wallet.publicKey, signature, challenge: issued.challenge },
  });
  return wallet;
}

async function sequenceOf(client: Client, address: string): Promise<number> {
  const info = await client.request({ command: 'account_info', account: address, ledger_index: 'current' });
  return info.result.account_data.Sequence;
}

/** N funded cold wallets, one per user of `tokens` (the first N), and a client on the stand-in. */
export async function prepareXrplAccounts(caller: Caller, tokens: string[], count: number, ledger: { url: string; faucetUrl: string }): Promise<XrplAccounts> {
  const client = new Client(ledger.url);
  await client.connect();
  let closed = (await client.request({ command: 'ledger_closed' })).result.ledger_index;
  client.on('ledgerClosed', (message) => (closed = Math.max(closed, message.ledger_index)));
  await client.request({ command: 'subscribe', streams: ['ledger'] });
  const wallets = await inParallel(tokens.slice(0, count), 8, async (token) => {
    const wallet = await registerCold(caller, token);
    const funded = await fetch(ledger.faucetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ destination: wallet.classicAddress, xrpAmount: '1000' }) });
    if (!funded.ok) throw new Error(`faucet: ${funded.status} ${await funded.text()}`);
    return wallet;
  });
  // Funded once the faucet's payment is in the current ledger.
  const sequences = await inParallel(wallets, 8, async (wallet) => {
    for (let tries = 0; ; tries++) {
      try {
        return await sequenceOf(client, wallet.classicAddress);
      } catch (error) {
        if (tries > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  });
  return { client, wallets, sequences, lastClosed: () => closed, close: () => client.disconnect() };
}

function payment(accounts: XrplAccounts, worker: number): { tx_blob: string; hash: string } {
  const wallet = accounts.wallets[worker]!;
  const tx: Payment = {
    TransactionType: 'Payment',
    Account: wallet.classicAddress,
    Destination: DESTINATION,
    Amount: AMOUNT_DROPS,
    Fee: '12',
    Sequence: accounts.sequences[worker]!,
    LastLedgerSequence: accounts.lastClosed() + 20,
  };
  return wallet.sign(tx);
}

/** After a failure the account's sequence is read again from the ledger. */
async function resync(accounts: XrplAccounts, worker: number): Promise<void> {
  accounts.sequences[worker] = await sequenceOf(accounts.client, accounts.wallets[worker]!.classicAddress).catch(() => accounts.sequences[worker]!);
}

/** The row's operation: worker w pays from its account through Bastion, answered validated. */
export function txSubmitOp(caller: Caller, tokens: string[], accounts: XrplAccounts): FlowOp {
  return async (worker) => {
    const signed = payment(accounts, worker);
    try {
      const answer = await call<{ status: string; result: string | null }>(caller, 'POST', '/non-custodian-xrpl/tx-submit', { bearer: tokens[worker]!, json: { txBlob: signed.tx_blob } });
      if (answer.status !== 'validated' || answer.result !== 'tesSUCCESS') throw new Error(`tx-submit answered ${answer.status} ${answer.result}`);
      accounts.sequences[worker]!++;
    } catch (error) {
      await resync(accounts, worker);
      throw error;
    }
  };
}

/** The ceiling: the same payments submitted by the xrpl Client, final at the validated `transaction` message. */
export async function xrplCeiling(accounts: XrplAccounts, options: { warmupSec: number; durationSec: number }) {
  const { client, wallets } = accounts;
  const waiting = new Map<string, { resolve: (result: string) => void }>();
  const onTransaction = (message: TransactionStream) => {
    const hash = (message as { hash?: string }).hash ?? (message.transaction as { hash?: string } | undefined)?.hash;
    const result = (message.meta as { TransactionResult?: string } | undefined)?.TransactionResult ?? message.engine_result;
    if (message.validated && hash) waiting.get(hash)?.resolve(result);
  };
  client.on('transaction', onTransaction);
  await client.request({ command: 'subscribe', accounts: wallets.map((w) => w.classicAddress) });
  for (let w = 0; w < wallets.length; w++) await resync(accounts, w);
  try {
    return await closedLoop(
      async (worker) => {
        const signed = payment(accounts, worker);
        const validated = new Promise<string>((resolve) => waiting.set(signed.hash, { resolve }));
        const timeout = setTimeout(() => waiting.get(signed.hash)?.resolve('timeout'), 30_000);
        try {
          const submitted = await client.request({ command: 'submit', tx_blob: signed.tx_blob });
          if (submitted.result.engine_result !== 'tesSUCCESS') throw new Error(`submit: ${submitted.result.engine_result}`);
          const result = await validated;
          if (result !== 'tesSUCCESS') throw new Error(`validated with ${result}`);
          accounts.sequences[worker]!++;
        } catch (error) {
          await resync(accounts, worker);
          throw error;
        } finally {
          clearTimeout(timeout);
          waiting.delete(signed.hash);
        }
      },
      { concurrency: wallets.length, ...options },
    );
  } finally {
    client.off('transaction', onTransaction);
    await client.request({ command: 'unsubscribe', accounts: wallets.map((w) => w.classicAddress) }).catch(() => undefined);
  }
}
