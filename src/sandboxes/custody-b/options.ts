import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { Db } from '../../platform/db/client.js';
import type { Platform } from '../../platform/module/module.js';
import type { EvmChainPort } from '../../providers/evm-chain/port.js';
import type { XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';

/** What the custody-b sandbox is built from (plugin.ts); its parts (broadcasts.ts, context.ts) read it. */
export interface CustodyBSandboxOptions {
  db: Db;
  secrets: SecretBox;
  clock: Clock;
  publicBaseUrl: () => string;
  /** The local EVM chain, where signed transactions are broadcast. */
  evmChain: () => Promise<EvmChainPort>;
  /** The XRPL ledger (the stand-in by default), where XRPL wallets' transactions are submitted. */
  xrplLedger: XrplLedgerPort;
  /** Broadcasts are durable: stored signed before they are sent, resumed by the platform's sweeper. */
  inFlight: Platform['inFlight'];
  /** True while the tenant's custody-b is this sandbox (not a configured provider): the faucet pays only then. */
  onSandbox: (tenantId: string) => Promise<boolean>;
}
