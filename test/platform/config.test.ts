import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('TRUST_PROXY: off by default, a hop count, or proxy addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', '::1']);
  });

  it('local chains: JSON-RPC on 127.0.0.1:8545 and the XRPL stand-in on 6006 by default; 0 is a random port, off turns the JSON-RPC off', () => {
    expect(loadConfig({}).localChains).toEqual({ host: '127.0.0.1', evmRpcPort: 8545, xrplPort: 6006 });
    expect(loadConfig({ EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0', LOCAL_CHAINS_HOST: '0.0.0.0' }).localChains).toEqual({ host: '0.0.0.0', evmRpcPort: 0, xrplPort: 0 });
    expect(loadConfig({ EVM_LOCAL_RPC_PORT: 'OFF' }).localChains.evmRpcPort).toBeUndefined();
    for (const [variable, value] of [['EVM_LOCAL_RPC_PORT', '65536'], ['EVM_LOCAL_RPC_PORT', 'on'], ['XRPL_LOCAL_PORT', 'off'], ['XRPL_LOCAL_PORT', '-1'], ['LOCAL_CHAINS_HOST', 'a b']] as const) {
      expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
    }
  });

  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: undefined, logLevel: 'info', publicBaseUrl: 'http://localhost:3000' });
    expect(c.dataDir).toMatch(/data$/);
  });

  it('HOST: loopback while the sandboxes are served outside production, every address otherwise, or as set', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ SANDBOXES: 'on' }).host).toBe('127.0.0.1');
    expect(loadConfig({ SANDBOXES: 'off' }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production' }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', SANDBOXES: 'on' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '::', NODE_ENV: 'production' }).host).toBe('::');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://x'],
    ['SMTP_URL', 'ftp://x'],
    ['MAIL_FROM', 'nobody'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['MASTER_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'proxy.internal'],
    ['TRUST_PROXY', '11'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    let thrown: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).message).toMatch(new RegExp(`^Invalid configuration: ${name} `));
    expect((thrown as ConfigError).message).not.toContain('\n');
  });

  it('accepts a 32-byte master key as hex or base64', () => {
    expect(loadConfig({ MASTER_KEY: 'ab'.repeat(32) }).masterKey?.length).toBe(32);
    expect(loadConfig({ MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }).masterKey?.length).toBe(32);
  });
});
