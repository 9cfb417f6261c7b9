import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createXrplLedger } from '../../src/chains/xrpl-ledger.js';

describe('xrpl-ledger configuration', () => {
  it('reads XRPL_URL (ws/wss only) and XRPL_FAUCET_URL (http/https only); unset means the stand-in', () => {
    expect(loadConfig({}).xrplUrl).toBeUndefined();
    expect(loadConfig({ XRPL_URL: 'wss://s.altnet.rippletest.net:51233' }).xrplUrl).toBe('wss://s.altnet.rippletest.net:51233');
    expect(loadConfig({ XRPL_FAUCET_URL: 'https://faucet.altnet.rippletest.net/accounts' }).xrplFaucetUrl).toBe('https://faucet.altnet.rippletest.net/accounts');
    expect(() => loadConfig({ XRPL_URL: 'https://s1.ripple.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ XRPL_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ XRPL_FAUCET_URL: 'ftp://x' })).toThrow(ConfigError);
  });

  it('starts the stand-in only on first use, and stops it on close', async () => {
    const ledger = createXrplLedger({ standIn: { closeIntervalMs: 0 } });
    expect(ledger.isSandbox).toBe(true);
    const server = await ledger.standIn();
    expect(server?.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect((await ledger.serverInfo()).validatedLedgerIndex).toBe(1);
    await ledger.close();
    await expect(fetch(server!.faucetUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('refuses to fund on a network without a faucet', async () => {
    const ledger = createXrplLedger({ xrplUrl: 'ws://127.0.0.1:9' });
    expect(ledger.isSandbox).toBe(false);
    expect(await ledger.standIn()).toBeUndefined();
    await expect(ledger.fundAccount('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh')).rejects.toMatchObject({ kind: 'faucet_unavailable' });
    await expect(ledger.serverInfo()).rejects.toMatchObject({ kind: 'unreachable' });
    await ledger.close();
  });

  it('has no ledger when sandboxes are off and XRPL_URL is unset (production default)', async () => {
    const config = loadConfig({ NODE_ENV: 'production' });
    const ledger = createXrplLedger({ sandboxes: config.sandboxes, xrplUrl: config.xrplUrl });
    expect(ledger.isSandbox).toBe(false);
    expect(await ledger.standIn()).toBeUndefined();
    await expect(ledger.accountInfo('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh')).rejects.toMatchObject({ kind: 'unreachable' });
    await ledger.close();
  });
});
