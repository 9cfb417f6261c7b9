import type { CustodyTransactionStatus, TransferStatus } from '../../providers/custody/port.js';

/**
 * The order statuses move in; a webhook or read never moves a transaction or transfer back.
 * The final statuses share the top rank: none replaces another.
 */
const TRANSACTION_RANK: Record<CustodyTransactionStatus, number> = {
  REQUESTED: 0, APPROVED: 1, COMPILED: 2, SIGNED: 3, PUBLISHED: 4, CONFIRMATION_PENDING: 5, CONFIRMED: 9, REJECTED: 9, FAILED: 9,
};
const TRANSFER_RANK: Record<TransferStatus, number> = { QUEUED: 0, IN_PROGRESS: 1, COMPLETED: 9, FAILED: 9 };

/** Own keys only: a status the port does not list (or named like an Object.prototype member) ranks -1 and never wins. */
const rankIn = (ranks: Record<string, number>, status: string): number => (Object.hasOwn(ranks, status) ? ranks[status]! : -1);

/** The rank of a vault transaction's status (custody-a's vault API). */
export const transactionStatusRank = (status: string): number => rankIn(TRANSACTION_RANK, status);

/** The rank of a transfer's status (custody-a's transfers API). */
export const transferStatusRank = (status: string): number => rankIn(TRANSFER_RANK, status);
