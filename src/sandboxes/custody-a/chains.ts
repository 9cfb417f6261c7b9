import { encodeFunctionData, erc20Abi, formatEther, keccak256, parseEther, parseUnits, type Hex } from 'viem';
import { toEip55 } from '../../platform/crypto/evm-address.js';
import { privateKeyToAccount } from 'viem/accounts';
import { Wallet, xrpToDrops, type AccountSet, type Payment, type SubmittableTransaction } from 'xrpl';
import type { EvmChainPort } from '../../providers/evm-chain/port.js';
import { broadcastSignedEvm } from '../../providers/evm-chain/broadcast.js';
import { broadcastSignedXrpl } from '../../providers/xrpl-ledger/broadcast.js';
import type { XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';

/** The chains the sandbox moves value on: the local EVM chain and the XRPL stand-in (or what the service is configured with). */
export interface SandboxChains {
  evmChain: () => Promise<EvmChainPort>;
  xrplLedger: XrplLedgerPort;
  /** The XRPL network name wallets are registered under (`local` for the stand-in; else the ledger's). */
  xrplNetwork: () => Promise<string>;
}

/** A refusal before anything is signed (or of the transaction itself by the ledger): the transaction is REJECTED. */
export class Refused extends Error {}

/** The chain answered the send with an error: the transaction FAILED (could not be sent). */
export class NotSent extends Error {}

/** EXPIRED: an XRPL transaction whose LastLedgerSequence a validated ledger has passed without it (it can never apply). */
export type Outcome = 'CONFIRMED' | 'FAILED' | 'PENDING' | 'EXPIRED';

const PLAIN_TRANSFER_GAS = 21_000n;

/**
 * Prepares and signs ETH (no contract) or an ERC-20 `transfer` with the wallet's key (nonce,
 * gas and fees from the chain), without sending it: answers the raw transaction and its hash.
 * `deductFee` (the transfers API's deductFeeFromAmountIfSameType) applies to ETH, the asset the
 * fee is paid in: the source spends `qty` in all (value + fee) and the destination gets `qty`
 * less the fee, so a whole balance can be swept. The fee is fixed before signing: a legacy
 * gas price, and 21,000 gas to an address without code (what a plain transfer uses, so the
 * spend is exactly `qty`) or the estimate for one with code (gas it leaves is refunded).
 * For a token the fee is in ETH, not the same asset, and the flag changes nothing.
 */
export async function signEvm(
  chains: SandboxChains,
  privateKey: Hex,
  input: { to: string; qty: string; contract?: string | null; symbol?: string; deductFee?: boolean },
): Promise<{ raw: Hex; hash: Hex }> {
  const chain = await chains.evmChain();
  const account = privateKeyToAccount(privateKey);
  const client = chain.walletClient(account);
  const to = toEip55(input.to);
  let request: { to: `0x${string}`; value?: bigint; data?: Hex; gas?: bigint; gasPrice?: bigint; type?: 'legacy' };
  if (!input.contract) {
    const amount = parseEther(input.qty);
    const balance = await chain.publicClient.getBalance({ address: account.address });
    if (balance < amount) throw new Refused('insufficient balance');
    if (!input.deductFee) request = { to, value: amount };
    else {
      const [code, gasPrice] = await Promise.all([chain.publicClient.getCode({ address: to }), chain.publicClient.getGasPrice()]);
      // A plain transfer costs exactly 21,000 gas (estimates may pad); code may use more, or less.
      const gas = !code || code === '0x' ? PLAIN_TRANSFER_GAS : await chain.publicClient.estimateGas({ account: account.address, to, value: amount });
      const fee = gas * gasPrice;
      if (amount <= fee) throw new Refused(`the amount does not cover the network fee (${formatEther(fee)} ETH)`);
      request = { to, value: amount - fee, gas, gasPrice, type: 'legacy' };
    }
  } else {
    const contract = toEip55(input.contract);
    let decimals: number;
    let symbol: string;
    try {
      [decimals, symbol] = await Promise.all([
        chain.publicClient.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' }),
        chain.publicClient.readContract({ address: contract, abi: erc20Abi, functionName: 'symbol' }),
      ]);
    } catch {
      throw new Refused('contract is not an ERC-20 token');
    }
    // The symbol names the asset the caller means; a different token at that address is refused.
    if (input.symbol !== undefined && input.symbol !== symbol) throw new Refused(`the token at ${contract} is ${symbol}, not ${input.symbol}`);
    if ((input.qty.split('.')[1] ?? '').length > decimals) throw new Refused(`qty has more than ${decimals} decimals`);
    const amount = parseUnits(input.qty, decimals);
    const balance = await chain.publicClient.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
    if (balance < amount) throw new Refused('insufficient token balance');
    request = { to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) };
  }
  const prepared = await client.prepareTransactionRequest({ ...request, account, chain: chain.chain, nonceManager: undefined });
  const raw = await account.signTransaction(prepared as Parameters<typeof account.signTransaction>[0]);
  return { raw, hash: keccak256(raw) };
}

/** Sends a stored signed EVM transaction again or for the first time (see broadcastSignedEvm). */
export async function broadcastEvm(chains: SandboxChains, raw: Hex, hash: Hex): Promise<'sent' | 'replaced' | { retry: string }> {
  const outcome = await broadcastSignedEvm(await chains.evmChain(), raw, hash);
  if (typeof outcome === 'object' && 'refused' in outcome) throw new NotSent(outcome.refused);
  return outcome;
}

export async function confirmEvm(chains: SandboxChains, hash: Hex, wait: boolean): Promise<Outcome> {
  const chain = await chains.evmChain();
  try {
    const receipt = wait
      ? await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 3_000, pollingInterval: 100 })
      : await chain.publicClient.getTransactionReceipt({ hash });
    return receipt.status === 'success' ? 'CONFIRMED' : 'FAILED';
  } catch {
    return 'PENDING';
  }
}

/** Autofills and signs an XRPL transaction from the wallet's seed, without sending it: the blob, its hash and LastLedgerSequence. */
export async function signXrpl(
  chains: SandboxChains,
  seed: string,
  build: (account: string) => Payment | AccountSet,
  sequence?: number,
): Promise<{ blob: string; hash: string; lastLedgerSequence: number }> {
  const wallet = Wallet.fromSeed(seed);
  const tx: SubmittableTransaction = build(wallet.classicAddress);
  if (sequence !== undefined) tx.Sequence = sequence;
  const filled = await chains.xrplLedger.autofill(tx);
  if (sequence !== undefined) filled.Sequence = sequence;
  const signed = wallet.sign(filled);
  return { blob: signed.tx_blob, hash: signed.hash, lastLedgerSequence: filled.LastLedgerSequence! };
}

/** Submits a stored signed XRPL blob (see broadcastSignedXrpl); a refusal of the transaction itself throws Refused. */
export async function broadcastXrpl(chains: SandboxChains, blob: string, hash: string): Promise<'sent' | 'replaced' | { retry: string }> {
  const outcome = await broadcastSignedXrpl(chains.xrplLedger, blob, hash);
  if (typeof outcome === 'object' && 'refused' in outcome) throw new Refused(`ledger refused the transaction: ${outcome.refused}`);
  return outcome;
}

export const xrpPayment = (destination: string, qty: string) => (account: string): Payment => ({
  TransactionType: 'Payment',
  Account: account,
  Destination: destination,
  Amount: xrpToDrops(qty),
});

/** asfDefaultRipple: what `accountSet: true` turns on (an issuing account's trust lines ripple). */
export const ASF_DEFAULT_RIPPLE = 8;
export const accountSetTx = (setFlag: number) => (account: string): AccountSet => ({ TransactionType: 'AccountSet', Account: account, SetFlag: setFlag });

export async function confirmXrpl(chains: SandboxChains, hash: string, lastLedgerSequence: number, wait: boolean): Promise<Outcome> {
  if (wait) {
    const final = await chains.xrplLedger.waitForFinal(hash, lastLedgerSequence, { timeoutMs: 3_000 });
    if (final.status === 'validated') return final.result === 'tesSUCCESS' ? 'CONFIRMED' : 'FAILED';
    return final.status === 'expired' ? 'EXPIRED' : 'PENDING';
  }
  const found = await chains.xrplLedger.lookupTransaction(hash);
  if (found.validated) return found.result === 'tesSUCCESS' ? 'CONFIRMED' : 'FAILED';
  const { validatedLedgerIndex } = await chains.xrplLedger.serverInfo();
  return lastLedgerSequence > 0 && validatedLedgerIndex > lastLedgerSequence ? 'EXPIRED' : 'PENDING';
}

export function newXrplWallet(): { address: string; seed: string } {
  const wallet = Wallet.generate();
  return { address: wallet.classicAddress, seed: wallet.seed! };
}
