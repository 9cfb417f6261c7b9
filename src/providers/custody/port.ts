/**
 * The custody port: what the custody modules need from an institutional custody provider.
 * custody-a offers two API surfaces under one base URL and one credential (docs/providers.md):
 * a vault API (vaults holding wallets, transfer and account-set transactions, `externalId`
 * idempotency) and a transfers API (`POST /v2/transfers`, `idempotentId`, travel-rule data).
 */

export type CustodyChain = 'ETHEREUM' | 'XRPL';

export type CustodyTransactionStatus =
  | 'REQUESTED'
  | 'APPROVED'
  | 'COMPILED'
  | 'SIGNED'
  | 'PUBLISHED'
  | 'CONFIRMATION_PENDING'
  | 'CONFIRMED'
  | 'REJECTED'
  | 'FAILED';

export const FINAL_TRANSACTION_STATUSES: readonly CustodyTransactionStatus[] = ['CONFIRMED', 'REJECTED', 'FAILED'];

export type TransferStatus = 'QUEUED' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
export const FINAL_TRANSFER_STATUSES: readonly TransferStatus[] = ['COMPLETED', 'FAILED'];

export interface CustodyVault {
  id: string;
  name: string;
  createdAt: string;
}

export interface CustodyWallet {
  id: string;
  vaultId: string;
  blockchain: CustodyChain;
  /** EVM: the chain id in decimal; XRPL: the network name. */
  network: string;
  address: string;
  name: string;
  description: string | null;
  createdAt: string;
}

export interface CustodyTransaction {
  id: string;
  externalId: string;
  vaultId: string;
  walletId: string;
  type: 'TRANSFER' | 'ACCOUNT_SET';
  status: CustodyTransactionStatus;
  symbol: string | null;
  qty: string | null;
  destinationAddress: string | null;
  contract: string | null;
  /** The chain's transaction hash, once signed. */
  hash: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TransferRequest {
  sourceWalletId: string;
  destinationAddress: string;
  assetType: string;
  amount: string;
  idempotentId: string;
  deductFeeFromAmountIfSameType: boolean;
  transferMemo?: string;
  transferAmlQuestionnaire?: Record<string, string>;
}

export interface CustodyTransfer {
  transferId: string;
  status: TransferStatus;
  assetType: string;
  amount: string;
  blockchainTxId: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One tenant's view of custody-a (its credential bound in). */
export interface CustodyAClient {
  createVault(input: { name: string }): Promise<CustodyVault>;
  createWallet(vaultId: string, input: { blockchain: CustodyChain; name: string }): Promise<CustodyWallet>;
  updateWallet(vaultId: string, walletId: string, input: { name: string; description: string | null }): Promise<CustodyWallet>;
  transfer(
    vaultId: string,
    walletId: string,
    input: { destinationAddress: string; symbol: string; qty: string; contract?: string; sequence?: string; externalId: string },
  ): Promise<CustodyTransaction>;
  accountSet(vaultId: string, walletId: string, input: { setFlag: number; externalId: string }): Promise<CustodyTransaction>;
  getTransaction(vaultId: string, walletId: string, transactionId: string): Promise<CustodyTransaction>;
  createTransfer(input: TransferRequest): Promise<CustodyTransfer>;
  getTransfer(transferId: string): Promise<CustodyTransfer>;
  /** The provider's P-256 webhook verification key (SPKI PEM). */
  webhookPublicKey(): Promise<string>;
}

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    custody: CustodyAClient;
  }
}
