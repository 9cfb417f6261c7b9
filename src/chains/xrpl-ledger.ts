import { join } from 'node:path';
import type { SubmittableTransaction } from 'xrpl';
import { XrplLedgerError, type XrplLedgerPort } from '../providers/xrpl-ledger/port.js';
import { RippledLedger } from '../providers/xrpl-ledger/rippled.js';
import { LocalListenerError } from '../providers/local-listener-error.js';
import { startStandIn, type StandInServer, type StandInServerOptions } from '../sandboxes/xrpl-ledger/server.js';

export type { XrplLedgerPort } from '../providers/xrpl-ledger/port.js';

export interface XrplLedgerConfig {
  /** XRPL_URL: a rippled WebSocket URL; unset means the in-process stand-in. */
  xrplUrl?: string;
  /** XRPL_FAUCET_URL: the faucet of a test network. */
  xrplFaucetUrl?: string;
  /** Config.sandboxes: when false (production default) and XRPL_URL is unset, there is no ledger. */
  sandboxes?: boolean;
  /** With the stand-in: keep its ledger in DATA_DIR/xrpl-standin.json across restarts. */
  dataDir?: string;
  /** Stand-in settings (tests close ledgers faster). */
  standIn?: StandInServerOptions;
}

export type XrplLedger = XrplLedgerPort & {
  /** The stand-in, started on first use; undefined when XRPL_URL is set. */
  standIn(): Promise<StandInServer | undefined>;
};

/**
 * The XRPL ledger port: the `xrpl` Client adapter against XRPL_URL, or, when XRPL_URL is unset,
 * against the local stand-in (on `standIn.host`/`standIn.port`, loopback by default), started by
 * `standIn()` (the service calls it at start) or else at the first call. `close` also stops it.
 */
export function createXrplLedger(config: XrplLedgerConfig): XrplLedger {
  if (config.xrplUrl) {
    const adapter = new RippledLedger({ url: config.xrplUrl, ...(config.xrplFaucetUrl ? { faucetUrl: config.xrplFaucetUrl } : {}) });
    return Object.assign(adapter, { standIn: async () => undefined });
  }
  if (config.sandboxes === false) return noLedger();
  let started: Promise<{ server: StandInServer; adapter: RippledLedger }> | undefined;
  const start = () =>
    (started ??= startStandIn({ ...(config.dataDir ? { stateFile: join(config.dataDir, 'xrpl-standin.json') } : {}), ...config.standIn }).then(
      (server) => ({
        server,
        adapter: new RippledLedger({ url: server.url, faucetUrl: server.faucetUrl, isSandbox: true, pollIntervalMs: 100 }),
      }),
      (error: NodeJS.ErrnoException) => {
        started = undefined;
        // The port is configured (XRPL_LOCAL_PORT): say which variable to change.
        if (error.syscall === 'listen') throw new LocalListenerError('XRPL_LOCAL_PORT', config.standIn?.host ?? '127.0.0.1', config.standIn?.port ?? 0, error);
        throw error;
      },
    ));
  const use = async () => (await start()).adapter;
  return {
    get url() {
      return 'stand-in';
    },
    isSandbox: true,
    standIn: async () => (await start()).server,
    serverInfo: async () => (await use()).serverInfo(),
    accountInfo: async (address, options) => (await use()).accountInfo(address, options),
    accountLines: async (address, options) => (await use()).accountLines(address, options),
    autofill: async <T extends SubmittableTransaction>(tx: T, options?: { signersCount?: number }) => (await use()).autofill(tx, options),
    submit: async (blob) => (await use()).submit(blob),
    lookupTransaction: async (hash) => (await use()).lookupTransaction(hash),
    waitForFinal: async (hash, lls, options) => (await use()).waitForFinal(hash, lls, options),
    fundAccount: async (address, xrp) => (await use()).fundAccount(address, xrp),
    close: async () => {
      if (!started) return;
      const { server, adapter } = await started;
      started = undefined;
      await adapter.close();
      await server.stop();
    },
  };
}

/** As createXrplLedger, with the stand-in already started. */
export async function openXrplLedger(config: XrplLedgerConfig): Promise<XrplLedger> {
  const ledger = createXrplLedger(config);
  await ledger.standIn();
  return ledger;
}

/** Sandboxes off and no XRPL_URL: every call says so, nothing pretends to be a ledger. */
function noLedger(): XrplLedger {
  const refuse = async (): Promise<never> => {
    throw new XrplLedgerError('unreachable', 'No XRPL ledger is configured: set XRPL_URL (the local stand-in is a sandbox, off unless SANDBOXES=on).');
  };
  return {
    url: 'none', isSandbox: false, standIn: async () => undefined,
    serverInfo: refuse, accountInfo: refuse, accountLines: refuse, autofill: refuse, submit: refuse,
    lookupTransaction: refuse, waitForFinal: refuse, fundAccount: refuse, close: async () => undefined,
  };
}
