import type { Account, Chain, EIP1193RequestFn, PrivateKeyAccount, PublicClient, Transport, WalletClient } from 'viem';

/** What GET /ready reports about the chain. */
export interface EvmChainStatus {
  /** `local`: the in-process chain (EDR); `rpc`: a node reached over JSON-RPC (EVM_RPC_URL). */
  mode: 'local' | 'rpc';
  chainId: number;
  blockNumber: string;
  /**
   * The local chain only, when its journal could not be replayed at some start: the chain began
   * empty again then, and records confirmed before `at` may name hashes this chain does not have.
   */
  resets?: Array<{ at: string; reason: string; lostBlockNumber: number; movedTo?: string }>;
}

/**
 * The EVM chain as the modules use it: viem clients over one EIP-1193 transport (JSON-RPC to a
 * node, or the local in-process chain). Reads, signature checks (EIP-1271, ERC-6492) and
 * transactions all go through these clients, so a module never knows which chain is behind.
 */
export interface EvmChainPort {
  readonly mode: 'local' | 'rpc';
  /** The chain id every message and transaction is bound to (EVM_CHAIN_ID, or the local 31337). */
  readonly chainId: number;
  readonly chain: Chain;
  readonly publicClient: PublicClient<Transport, Chain>;
  /** A wallet client that signs with `account` (a local account: keys never reach the node). */
  walletClient(account: Account): WalletClient<Transport, Chain, Account>;
  /**
   * Funded development accounts of the local chain (empty over RPC). Their keys are written
   * only to DATA_DIR/evm-dev-accounts.json (mode 0600), never logged or answered.
   */
  readonly devAccounts: readonly PrivateKeyAccount[];
  /**
   * The local chain only: its JSON-RPC request function, journaled as the clients' own (a call
   * that changes the chain is durable before it is answered). The local RPC listener serves it.
   */
  readonly localRequest?: EIP1193RequestFn;
  /** Checks the chain answers with the configured chain id; throws EvmChainUnavailable otherwise. */
  status(): Promise<EvmChainStatus>;
  close(): Promise<void>;
}

export class EvmChainUnavailable extends Error {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`EVM chain unavailable: ${detail}`, options);
    this.name = 'EvmChainUnavailable';
  }
}

/** The magic suffix of an ERC-6492 signature (a smart wallet not deployed yet). */
export const ERC6492_SUFFIX = '6492649264926492649264926492649264926492649264926492649264926492';

/** Errors of the chain itself (unreachable, timed out) as opposed to a signature that does not verify. */
const CHAIN_FAILURES = new Set([
  'HttpRequestError',
  'TimeoutError',
  'EvmChainUnavailable',
  'InternalRpcError',
  'LimitExceededRpcError',
  'ResourceUnavailableRpcError',
  'MethodNotSupportedRpcError',
]);
export function isChainFailure(error: unknown): boolean {
  // viem wraps the cause (e.g. CallExecutionError around an HttpRequestError): look down the chain.
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    if (CHAIN_FAILURES.has((current as { name?: string }).name ?? '')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

declare module '../../platform/module/module.js' {
  interface ChainPorts {
    evm: EvmChainPort;
  }
}
