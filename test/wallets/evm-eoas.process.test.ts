import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import type { ChallengeDto } from '../../src/modules/wallets/schemas.js';
import { messageFor } from './siwe.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { servicePort } from '../helpers/ports.js';

describe.skipIf(ONE_PASS_ONLY)('the service with no configuration', () => {
  it('starts its local chain, serves its JSON-RPC and the XRPL stand-in on the URLs /ready and the start log name, and registers an EOA over HTTP; the dev keys stay in their 0600 file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-evm-proc-'));
    const port = servicePort();
    const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 90_000;
      while (!output.includes('Server listening')) {
        if (Date.now() > deadline) throw new Error(`the service did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(200);
      const checks = ((await ready.json()) as { checks: { evmChain: { rpcUrl: string }; xrplLedger: { url: string } } }).checks;
      expect(checks).toMatchObject({ evmChain: { mode: 'local', chainId: 31337, rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }, xrplLedger: { mode: 'stand-in', url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/) } });
      // The start log names both URLs, before the service says it listens.
      const logged = output.indexOf(`"evmRpcUrl":"${checks.evmChain.rpcUrl}","xrplUrl":"${checks.xrplLedger.url}"`);
      expect(logged).toBeGreaterThan(-1);
      expect(logged).toBeLessThan(output.indexOf('Server listening'));
      const chainId = await fetch(checks.evmChain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
      expect(await chainId.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });

      const demo = JSON.parse(readFileSync(join(dataDir, 'demo-tenant.json'), 'utf8')) as { tenantId: string; apiKey: string };
      const key = { 'x-tenant-id': demo.tenantId, 'x-api-key': demo.apiKey, 'content-type': 'application/json' };
      const user = await (await fetch(`${base}/users`, { method: 'POST', headers: key, body: JSON.stringify({ email: 'ada@example.com' }) })).json() as { id: string };
      const pair = await (await fetch(`${base}/auth/users/${user.id}/token`, { method: 'POST', headers: { 'x-tenant-id': demo.tenantId, 'x-api-key': demo.apiKey } })).json() as { accessToken: string };
      const bearer = { 'x-tenant-id': demo.tenantId, authorization: `Bearer ${pair.accessToken}`, 'content-type': 'application/json' };
      const challenge = (await (await fetch(`${base}/evm-eoas/challenge`, { headers: bearer })).json()) as ChallengeDto;
      expect(challenge).toMatchObject({ domain: `localhost:${port}`, chainId: 31337 });

      const account = privateKeyToAccount(generatePrivateKey());
      const message = messageFor(challenge, account.address);
      const res = await fetch(`${base}/evm-eoas`, { method: 'POST', headers: bearer, body: JSON.stringify({ message, signature: await account.signMessage({ message }) }) });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({ userId: user.id, address: account.address, chainId: 31337 });

      const devFile = join(dataDir, 'evm-dev-accounts.json');
      expect(statSync(devFile).mode & 0o777).toBe(0o600);
      for (const { privateKey } of JSON.parse(readFileSync(devFile, 'utf8')).accounts) expect(output).not.toContain(privateKey.slice(2));
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 300_000);
});
