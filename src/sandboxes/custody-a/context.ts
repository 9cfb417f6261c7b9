import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { Db } from '../../platform/db/client.js';
import type { BackgroundRunner } from '../../platform/module/background.js';
import type { Platform } from '../../platform/module/module.js';
import type { CustodyTransaction, CustodyTransfer, CustodyWallet } from '../../providers/custody/port.js';
import type { SandboxChains } from './chains.js';
import type { SandboxTransactionRow, SandboxTransferRow, SandboxWalletRow } from './table.js';

export const SANDBOX_PREFIX = '/sandbox/custody-a';

export interface CustodyASandboxOptions {
  db: Db;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  background: BackgroundRunner;
  /** Accepted work is durable: its rows are in-flight flows the platform's sweeper resumes after a crash. */
  inFlight: Platform['inFlight'];
  chains: SandboxChains;
  publicBaseUrl: () => string;
  fetch?: typeof fetch;
}

/** A refusal in the provider's error shape. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export const walletKeyContext = (walletId: string) => `custody-a-sandbox:wallet:${walletId}`;

export function walletDto(row: SandboxWalletRow): CustodyWallet {
  return {
    id: row.id,
    vaultId: row.vaultId,
    blockchain: row.blockchain,
    network: row.network,
    address: row.address,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
  };
}

export function transactionDto(row: SandboxTransactionRow): CustodyTransaction {
  const r = row.request as { symbol?: string; qty?: string; destinationAddress?: string; contract?: string };
  return {
    id: row.id,
    externalId: row.externalId,
    vaultId: row.vaultId,
    walletId: row.walletId,
    type: row.type,
    status: row.status as CustodyTransaction['status'],
    symbol: r.symbol ?? null,
    qty: r.qty ?? null,
    destinationAddress: r.destinationAddress ?? null,
    contract: r.contract ?? null,
    hash: row.hash,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function transferDto(row: SandboxTransferRow): CustodyTransfer {
  return {
    transferId: row.id,
    status: row.status as CustodyTransfer['status'],
    assetType: row.assetType,
    amount: row.amount,
    // The hash is known from signing on, but the transaction is the chain's only once sent.
    blockchainTxId: row.status === 'QUEUED' ? null : row.hash,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
