import type { SubmittableTransaction } from 'xrpl';

/** Local checks of a signed blob (decoding, canonical form, signatures) a module runs before submitting it. */
export { inspectSignedBlob, type InspectedBlob } from './signatures.js';

/**
 * The XRPL ledger port: what the XRPL wallet routes need from a rippled server. One adapter
 * (rippled.ts) implements it over the `xrpl` Client's WebSocket, against a real rippled
 * (XRPL_URL) or the in-process stand-in (sandbox/), which speaks the same protocol.
 */
export interface XrplLedgerPort {
  /** XRPL_URL the adapter talks to, or "stand-in" for the local ledger. */
  readonly url: string;
  /** True when the ledger is the local stand-in (funding from its genesis account is free). */
  readonly isSandbox: boolean;

  serverInfo(): Promise<XrplServerInfo>;
  /** The account root, its flags, regular key and SignerList; null when the account does not exist. */
  accountInfo(address: string, options?: { ledger?: 'validated' | 'current' }): Promise<XrplAccountInfo | null>;
  /** The account's trust lines (empty when the account does not exist). */
  accountLines(address: string, options?: { ledger?: 'validated' | 'current' }): Promise<XrplTrustLine[]>;
  /**
   * Fills Sequence, Fee (raised for `signersCount` multi-signatures) and LastLedgerSequence from
   * the ledger, as the xrpl Client's autofill; the result is ready to sign.
   */
  autofill<T extends SubmittableTransaction>(tx: T, options?: { signersCount?: number }): Promise<T>;
  /** Sends a signed transaction blob; the answer is preliminary until the transaction is validated. */
  submit(txBlob: string): Promise<XrplSubmitResult>;
  /** Looks a transaction up by hash; `found: false` while no ledger holds it. */
  lookupTransaction(hash: string): Promise<XrplTxStatus>;
  /**
   * Waits until the transaction is in a validated ledger, or the validated ledger has passed its
   * LastLedgerSequence without it (then it can never apply: `expired`), or `timeoutMs` passes.
   */
  waitForFinal(hash: string, lastLedgerSequence: number, options?: { timeoutMs?: number }): Promise<XrplFinalOutcome>;
  /** Funds an account from the network's faucet (the stand-in's, or a test network's); throws on mainnet. */
  fundAccount(address: string, xrp?: string): Promise<{ balanceDrops: string }>;
  close(): Promise<void>;
}

export interface XrplServerInfo {
  buildVersion: string;
  networkId?: number;
  validatedLedgerIndex: number;
  baseFeeDrops: string;
  reserveBaseDrops: string;
  reserveIncDrops: string;
  loadFactor: number;
}

export interface XrplSignerList {
  quorum: number;
  signers: { account: string; weight: number }[];
}

export interface XrplAccountFlags {
  defaultRipple: boolean;
  disableMaster: boolean;
  requireDestTag: boolean;
  requireAuth: boolean;
  disallowXRP: boolean;
  depositAuth: boolean;
  globalFreeze: boolean;
  noFreeze: boolean;
}

export interface XrplAccountInfo {
  address: string;
  balanceDrops: string;
  sequence: number;
  ownerCount: number;
  /** The raw AccountRoot Flags and their meaning. */
  flagsValue: number;
  flags: XrplAccountFlags;
  regularKey?: string;
  signerList?: XrplSignerList;
  ledgerIndex: number;
  validated: boolean;
}

export interface XrplTrustLine {
  peer: string;
  currency: string;
  balance: string;
  limit: string;
  limitPeer: string;
  noRipple: boolean;
  noRipplePeer: boolean;
}

export interface XrplSubmitResult {
  hash: string;
  /** rippled's engine result, e.g. tesSUCCESS, tefPAST_SEQ, terPRE_SEQ, tecUNFUNDED_PAYMENT. */
  engineResult: string;
  engineResultCode: number;
  engineResultMessage: string;
  /** The server kept the transaction (applied to its open ledger, queued or held for later). */
  accepted: boolean;
  /** The account's next sequence as the server's open ledger sees it. */
  accountSequenceNext?: number;
  tx: Record<string, unknown>;
}

export interface XrplTxStatus {
  hash: string;
  found: boolean;
  validated: boolean;
  ledgerIndex?: number;
  /** The final result when validated (meta.TransactionResult). */
  result?: string;
  tx?: Record<string, unknown>;
}

export type XrplFinalOutcome =
  | { status: 'validated'; hash: string; result: string; ledgerIndex: number; tx?: Record<string, unknown> }
  | { status: 'expired'; hash: string; validatedLedgerIndex: number }
  | { status: 'pending'; hash: string };

/** What went wrong talking to the ledger: not reachable, a refused request (with rippled's error token), no faucet. */
export class XrplLedgerError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'rejected' | 'invalid_transaction' | 'faucet_unavailable',
    message: string,
    readonly rippledError?: string,
  ) {
    super(message);
    this.name = 'XrplLedgerError';
  }
}

declare module '../../platform/module/module.js' {
  interface ChainPorts {
    xrpl: XrplLedgerPort;
  }
}
