import { Client, Wallet, type SubmittableTransaction, type TxResponse } from 'xrpl';
import { startStandIn, type StandInServer } from '../../src/sandboxes/xrpl-ledger/server.js';

/** rippled's standalone genesis account: the same on the stand-in and on `rippled --standalone`. */
export const GENESIS_SEED = 'snoPBrXtMeMyMHUVTgbuqAfg1SUTb';

/**
 * Where the contract suite runs: the in-process stand-in by default, or a real rippled when
 * XRPL_URL is set (a standalone rippled, funded from its genesis account and closed with
 * ledger_accept; or a test network with XRPL_FAUCET_URL).
 */
export interface LedgerUnderTest {
  client: Client;
  standIn?: StandInServer;
  external: boolean;
  fund(xrp: number): Promise<Wallet>;
  /** Sends a transaction with the unmodified Client (submit) and waits for it to be validated. */
  send(tx: SubmittableTransaction, wallet: Wallet): Promise<TxResponse['result']>;
  /** The next ledger, now (ledger_accept) where the server allows it. */
  closeLedger(): Promise<void>;
  stop(): Promise<void>;
}

export async function openLedgerUnderTest(): Promise<LedgerUnderTest> {
  const externalUrl = process.env.XRPL_URL;
  const standIn = externalUrl ? undefined : await startStandIn({ closeIntervalMs: 150 });
  const client = new Client(externalUrl ?? standIn!.url);
  await client.connect();
  // A standalone rippled closes ledgers only on ledger_accept; a test network refuses it (ignored).
  const closer = externalUrl ? setInterval(() => void client.request({ command: 'ledger_accept' } as never).catch(() => undefined), 300) : undefined;
  const genesis = Wallet.fromSeed(GENESIS_SEED, { algorithm: 'secp256k1' as never });
  const faucetUrl = process.env.XRPL_FAUCET_URL;
  let funding = Promise.resolve();

  // The unmodified Client submits (autofill, sign); validation is awaited by polling `tx` every
  // 50 ms: submitAndWait polls once a second, which made this suite a minute of waiting. The
  // Payment case drives submitAndWait itself.
  const send = async (tx: SubmittableTransaction, wallet: Wallet) => {
    const { result } = await client.submit(tx, { wallet, autofill: true });
    const hash = result.tx_json.hash;
    if (!hash) throw new Error(`no hash in the answer to submit: ${result.engine_result}`);
    return waitValidated(client, hash);
  };
  const fund = async (xrp: number): Promise<Wallet> => {
    const wallet = Wallet.generate();
    if (faucetUrl) {
      const { hostname, port, pathname, protocol } = new URL(faucetUrl);
      await client.fundWallet(wallet, { faucetHost: port ? `${hostname}:${port}` : hostname, faucetPath: pathname, faucetProtocol: protocol.replace(':', '') as 'http', amount: String(xrp) });
      return wallet;
    }
    // Genesis payments are submitted one at a time (each autofill reads the open ledger's Sequence), then awaited together.
    const submitted = funding.then(() => client.submit({ TransactionType: 'Payment', Account: genesis.classicAddress, Destination: wallet.classicAddress, Amount: String(xrp * 1_000_000) }, { wallet: genesis }));
    funding = submitted.then(() => undefined, () => undefined);
    const { result } = await submitted;
    if (result.engine_result !== 'tesSUCCESS') throw new Error(`funding failed: ${result.engine_result}`);
    await waitValidated(client, result.tx_json.hash!);
    return wallet;
  };
  return {
    client,
    ...(standIn ? { standIn } : {}),
    external: Boolean(externalUrl),
    fund,
    send,
    closeLedger: async () => {
      await client.request({ command: 'ledger_accept' } as never).catch(() => undefined);
    },
    stop: async () => {
      if (closer) clearInterval(closer);
      await client.disconnect();
      await standIn?.stop();
    },
  };
}

export const resultOf = (result: TxResponse['result']) => (result.meta as { TransactionResult: string }).TransactionResult;

/** Polls `tx` until the transaction is in a validated ledger. */
export async function waitValidated(client: Client, hash: string): Promise<TxResponse['result']> {
  for (let i = 0; i < 300; i++) {
    const response = await client.request({ command: 'tx', transaction: hash }).catch(() => undefined);
    if (response?.result.validated) return response.result;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${hash} not validated`);
}
