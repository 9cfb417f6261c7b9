import type { XrplLedgerPort } from './port.js';
import { RippledLedger } from './rippled.js';
import { startStandIn, type StandInServer, type StandInServerOptions } from './sandbox/server.js';

export type { XrplLedgerPort } from './port.js';

export interface XrplLedgerConfig {
  /** XRPL_URL: a rippled WebSocket URL; unset starts the in-process stand-in. */
  xrplUrl?: string;
  /** XRPL_FAUCET_URL: the faucet of a test network. */
  xrplFaucetUrl?: string;
  /** Stand-in settings (tests close ledgers faster). */
  standIn?: StandInServerOptions;
}

/**
 * Opens the XRPL ledger port: the `xrpl` Client adapter against XRPL_URL, or against the local
 * stand-in started here on loopback when XRPL_URL is unset. `close` also stops the stand-in.
 */
export async function openXrplLedger(config: XrplLedgerConfig): Promise<XrplLedgerPort & { standIn?: StandInServer }> {
  if (config.xrplUrl) {
    return new RippledLedger({ url: config.xrplUrl, ...(config.xrplFaucetUrl ? { faucetUrl: config.xrplFaucetUrl } : {}) });
  }
  const standIn = await startStandIn(config.standIn);
  const adapter = new RippledLedger({ url: standIn.url, faucetUrl: standIn.faucetUrl, isSandbox: true, pollIntervalMs: 100 });
  const close = adapter.close.bind(adapter);
  return Object.assign(adapter, {
    standIn,
    close: async () => {
      await close();
      await standIn.stop();
    },
  });
}
