import { Type } from 'typebox';
import { formatEther, parseEther, type Address, type Hex } from 'viem';
import { AppError } from '../platform/http/errors.js';
import type { EvmChainPort } from '../providers/evm-chain/port.js';
import { XrplLedgerError, type XrplLedgerPort } from '../providers/xrpl-ledger/port.js';

/**
 * The custody sandboxes' faucets (POST /sandbox/custody-a/vaults/{id}/fund, POST
 * /sandbox/custody-b/fund): a sandbox funds its own wallets on request, as a real provider's
 * testnet does, from the local chains' development accounts (EVM) and the ledger's faucet (XRPL).
 */
export const FAUCET_LIMITS = { ETH: { max: '10', decimals: 18 }, XRP: { max: '1000', decimals: 6 } } as const;
export type FaucetSymbol = keyof typeof FAUCET_LIMITS;

export const FaucetErrors = {
  amountInvalid: (field: string, symbol: FaucetSymbol) =>
    new AppError(400, 'FAUCET_AMOUNT_INVALID', `${field} must be a positive decimal string of ${symbol} with at most ${FAUCET_LIMITS[symbol].decimals} decimals`),
  overLimit: (field: string, symbol: FaucetSymbol) => new AppError(400, 'FAUCET_LIMIT_EXCEEDED', `${field} is at most ${FAUCET_LIMITS[symbol].max} ${symbol} per request`),
  notSandbox: (provider: string) =>
    new AppError(409, 'FAUCET_NOT_SANDBOX', `The tenant's ${provider} is a configured provider, not the built-in sandbox: fund its wallets at that provider`),
  unavailable: (detail: string) => new AppError(503, 'FAUCET_UNAVAILABLE', `The sandbox faucet cannot pay: ${detail}`, { 'retry-after': '5' }),
};

/** The routes' schemas (OpenAPI: tag "Sandbox faucets"). */
export const FAUCET_TAGS = ['Sandbox faucets'];
const Balance = { hash: Type.Union([Type.String(), Type.Null()], { description: 'The EVM funding transaction (XRPL: null)' }), balance: Type.String({ description: "The wallet's balance after the payment" }) };
export const CustodyAFundParams = Type.Object({ vaultId: Type.String({ format: 'uuid' }) });
export const CustodyAFundBody = Type.Object({ symbol: Type.String({ maxLength: 16, description: 'ETH (the EVM wallet) or XRP (the XRPL wallet)' }), qty: Type.String({ maxLength: 40, description: 'At most 10 ETH / 1000 XRP' }) });
export const CustodyAFunded = Type.Object({ vaultId: Type.String(), address: Type.String(), symbol: Type.String(), qty: Type.String(), ...Balance });
export const CustodyBFundBody = Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }), amount: Type.String({ maxLength: 40, description: 'ETH (at most 10) or XRP (at most 1000), by the wallet' }) });
export const CustodyBFunded = Type.Object({ address: Type.String(), symbol: Type.String(), amount: Type.String(), ...Balance });

const DECIMAL_RE = /^(0|[1-9]\d{0,17})(\.\d{1,18})?$/;

/** A faucet amount: a positive decimal string within the per-request limit. */
export function faucetAmount(value: unknown, symbol: FaucetSymbol, field: string): string {
  const { max, decimals } = FAUCET_LIMITS[symbol];
  if (typeof value !== 'string' || !DECIMAL_RE.test(value) || /^0(\.0+)?$/.test(value) || (value.split('.')[1] ?? '').length > decimals) {
    throw FaucetErrors.amountInvalid(field, symbol);
  }
  // 18 decimals suffice to compare both units exactly.
  if (parseEther(value) > parseEther(max)) throw FaucetErrors.overLimit(field, symbol);
  return value;
}

export interface Funded {
  address: string;
  symbol: FaucetSymbol;
  amount: string;
  /** The funding transaction (EVM); the XRPL faucet answers none. */
  hash: string | null;
  /** The address's balance after the funding, in the symbol's unit. */
  balance: string;
}

// One payment at a time per chain from the faucet's account: its nonces stay in order.
const queues = new WeakMap<EvmChainPort, Promise<unknown>>();

/**
 * Pays `ether` from the local chain's last development account (the walkthrough and scripts use
 * the first) and waits for the receipt. A chain reached over EVM_RPC_URL has none: 503.
 */
export async function fundEvm(chain: EvmChainPort, address: Address, ether: string): Promise<Funded> {
  const payer = chain.devAccounts.at(-1);
  if (!payer) throw FaucetErrors.unavailable('the EVM chain is a configured node (EVM_RPC_URL): it has no development accounts');
  const previous = queues.get(chain) ?? Promise.resolve();
  const payment = previous
    .catch(() => undefined)
    .then(async () => {
      let hash: Hex;
      try {
        hash = await chain.walletClient(payer).sendTransaction({ to: address, value: parseEther(ether) });
      } catch (error) {
        throw FaucetErrors.unavailable((error as Error).message.split('\n')[0]!);
      }
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
      if (receipt.status !== 'success') throw FaucetErrors.unavailable(`the funding transaction ${hash} reverted`);
      return hash;
    });
  queues.set(chain, payment);
  const hash = await payment;
  return { address, symbol: 'ETH', amount: ether, hash, balance: formatEther(await chain.publicClient.getBalance({ address })) };
}

/** Pays `xrp` from the ledger's faucet (the stand-in's genesis account, or a test network's faucet). */
export async function fundXrpl(ledger: XrplLedgerPort, address: string, xrp: string): Promise<Funded> {
  try {
    const { balanceDrops } = await ledger.fundAccount(address, xrp);
    return { address, symbol: 'XRP', amount: xrp, hash: null, balance: formatDrops(balanceDrops) };
  } catch (error) {
    if (error instanceof XrplLedgerError) throw FaucetErrors.unavailable(error.message);
    throw error;
  }
}

function formatDrops(drops: string): string {
  const whole = drops.length > 6 ? drops.slice(0, -6) : '0';
  const fraction = drops.padStart(7, '0').slice(-6).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
