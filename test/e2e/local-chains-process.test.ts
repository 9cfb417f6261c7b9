import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseEther, type Chain, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Client, Wallet } from 'xrpl';
import { compileWallets } from '../wallets/contracts.js';
import { messageFor } from '../wallets/siwe.js';
import { TEST_MASTER_KEY } from '../helpers/harness.js';
import { ownPostgresDatabase, type OwnDatabase } from '../helpers/own-database.js';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import type { ChallengeDto } from '../../src/modules/wallets/schemas.js';
import { nodeArgsFor } from '../../scripts/built.mjs';

/**
 * Issue #28 end to end: the service as `npm start` runs it (its own process, the local chains on
 * the ports it opens), an integrator with the official clients at the URLs GET /ready names. A
 * custody-a vault funded by the sandbox's faucet sends ETH and XRP out through Bastion's API, the
 * balances read back with viem and the xrpl Client; an EIP-1271 wallet deployed through the
 * JSON-RPC registers with POST /evm-eoas. With DATABASE_URL set it runs on a database of its own on that server; REDIS_URL passes through.
 */
const ROOT = resolve(import.meta.dirname, '../..');
let work: string;
let service: ChildProcess | undefined;
let log = '';
let base: string;
let env: NodeJS.ProcessEnv;
let ready: { checks: { evmChain: { rpcUrl: string; chainId: number }; xrplLedger: { url: string; faucetUrl: string } } };
let chain: Chain;
let tenant: { tenantId: string; apiKey: string };
let userId: string;
let userToken: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

function run(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgsFor(args[0]!), ...args.slice(1)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')}: exit ${code}\n${err}`))));
  });
}

const keyHeaders = () => ({ 'x-tenant-id': tenant.tenantId, 'x-api-key': tenant.apiKey, 'content-type': 'application/json' });
const userHeaders = () => ({ 'x-tenant-id': tenant.tenantId, authorization: `Bearer ${userToken}`, 'content-type': 'application/json' });

async function api(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

let database: OwnDatabase | undefined;

// Its subject does not depend on the database kind: the PGlite pass runs it (helpers/passes.ts).
beforeAll(async () => {
  if (ONE_PASS_ONLY) return;
  work = mkdtempSync(join(tmpdir(), 'bastion-chains-'));
  // On PostgreSQL, a database of its own: the service's workers serve every tenant of theirs (helpers/own-database.ts).
  database = process.env.DATABASE_URL ? await ownPostgresDatabase(process.env.DATABASE_URL, 'chains') : undefined;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: join(work, 'data'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    EVM_LOCAL_RPC_PORT: '0',
    XRPL_LOCAL_PORT: '0',
    ...(database ? { DATABASE_URL: database.url, MASTER_KEY: TEST_MASTER_KEY } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  service = spawn(process.execPath, nodeArgsFor('src/main.ts'), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  service.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  service.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 240_000;
  for (;;) {
    const res = await fetch(`${base}/ready`).catch(() => undefined);
    if (res?.status === 200) {
      ready = (await res.json()) as typeof ready;
      break;
    }
    if (service.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not become ready:\n${log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  chain = defineChain({ id: ready.checks.evmChain.chainId, name: 'local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [ready.checks.evmChain.rpcUrl] } } });
  // The operator CLI, through the running service (README step 1).
  tenant = JSON.parse(await run(['src/cli.ts', 'tenant', 'create', '--name', 'chains'])) as typeof tenant;
  const user = await api('POST', '/users', keyHeaders(), { email: 'chains@example.com', fullName: 'Chain User' });
  expect(user.status).toBe(201);
  userId = user.json.id as string;
  const token = await api('POST', `/auth/users/${userId}/token`, keyHeaders(), {});
  expect(token.status, JSON.stringify(token.json)).toBe(201);
  userToken = token.json.accessToken as string;
}, 300_000);

afterAll(async () => {
  if (service?.pid && service.exitCode === null) {
    const exited = new Promise((done) => service!.on('exit', done));
    process.kill(-service.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (service.exitCode === null) process.kill(-service.pid, 'SIGKILL');
  }
  if (work) rmSync(work, { recursive: true, force: true });
  await database?.drop();
}, 30_000);

/** Polls a custody-a transaction until it is final; answers it. */
async function settled(path: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { json } = await api('GET', path, keyHeaders());
    if (!['REQUESTED', 'APPROVED', 'COMPILED', 'SIGNED', 'PUBLISHED', 'CONFIRMATION_PENDING'].includes(json.status as string) || Date.now() > deadline) return json;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(ONE_PASS_ONLY)('the local chains of a started service, with viem and the xrpl Client', () => {
  it('a custody-a vault funded by the sandbox faucet sends ETH and XRP out; viem and the xrpl Client read the balances', async () => {
    const publicClient = createPublicClient({ chain, transport: http() });
    const xrpl = new Client(ready.checks.xrplLedger.url);
    await xrpl.connect();
    try {
      const created = await api('POST', '/evm-vaults', keyHeaders(), { userId, xrplWallet: true });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const vault = created.json as { id: string; address: string; wallets: Array<{ walletId: string; chain: string; address: string }> };
      const evmWallet = vault.wallets.find((w) => w.chain === 'evm')!;
      const xrplWallet = vault.wallets.find((w) => w.chain === 'xrpl')!;

      // The faucet: refusals first (limit, amount, symbol, no credentials), then ETH and XRP.
      const fundUrl = `/sandbox/custody-a/vaults/${vault.id}/fund`;
      const over = await api('POST', fundUrl, keyHeaders(), { symbol: 'ETH', qty: '10.5' });
      expect([over.status, over.json.code]).toEqual([400, 'FAUCET_LIMIT_EXCEEDED']);
      expect(over.json).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('10 ETH') });
      expect((await api('POST', fundUrl, keyHeaders(), { symbol: 'XRP', qty: '1.0000001' })).json.code).toBe('FAUCET_AMOUNT_INVALID');
      expect((await api('POST', fundUrl, keyHeaders(), { symbol: 'BTC', qty: '1' })).json.code).toBe('SYMBOL_UNKNOWN');
      expect((await api('POST', fundUrl, { 'x-tenant-id': tenant.tenantId, 'content-type': 'application/json' }, { symbol: 'ETH', qty: '1' })).status).toBe(401);
      const eth = await api('POST', fundUrl, keyHeaders(), { symbol: 'ETH', qty: '1' });
      expect(eth.status, JSON.stringify(eth.json)).toBe(200);
      expect(eth.json).toMatchObject({ vaultId: vault.id, address: evmWallet.address, symbol: 'ETH', qty: '1', hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), balance: '1' });
      expect(await publicClient.getBalance({ address: evmWallet.address as Hex })).toBe(parseEther('1'));
      // The vault's owner may fund it too (its bearer token).
      const xrp = await api('POST', fundUrl, userHeaders(), { symbol: 'XRP', qty: '30' });
      expect(xrp.status, JSON.stringify(xrp.json)).toBe(200);
      expect(xrp.json).toMatchObject({ address: xrplWallet.address, symbol: 'XRP', balance: '40' });
      expect(await xrpl.getXrpBalance(xrplWallet.address)).toBe(40);

      // Out through Bastion's API, on both chains.
      const evmTo = privateKeyToAccount(generatePrivateKey()).address;
      const xrplTo = Wallet.generate().classicAddress;
      const sends = [
        { wallet: evmWallet, key: 'e2e-eth', body: { destinationAddress: evmTo, symbol: 'ETH', qty: '0.25' } },
        { wallet: xrplWallet, key: 'e2e-xrp', body: { destinationAddress: xrplTo, symbol: 'XRP', qty: '20' } },
      ];
      const started = await Promise.all(
        sends.map(({ wallet, key, body }) => api('POST', `/custody-a/vaults/${vault.id}/wallets/${wallet.walletId}/transactions/transfer`, { ...keyHeaders(), 'idempotency-key': key }, body)),
      );
      for (const [i, answer] of started.entries()) {
        expect(answer.status, JSON.stringify(answer.json)).toBe(201);
        const final = await settled(`/custody-a/vaults/${vault.id}/wallets/${sends[i]!.wallet.walletId}/transactions/${answer.json.transactionId as string}`);
        expect(final, JSON.stringify(final)).toMatchObject({ status: 'CONFIRMED', hash: expect.any(String) });
      }
      expect(await publicClient.getBalance({ address: evmTo })).toBe(parseEther('0.25'));
      expect(await xrpl.getXrpBalance(xrplTo)).toBe(20);
    } finally {
      await xrpl.disconnect();
    }
  }, 120_000);

  it('the custody-b faucet pays only the caller\'s own custody-b wallets, to the user bearer (an API key: 403)', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const res = await api('POST', '/sandbox/custody-b/fund', userHeaders(), { address: stranger, amount: '1' });
    expect([res.status, res.json.code]).toEqual([404, 'WALLET_NOT_FOUND']);
    expect((await api('POST', '/sandbox/custody-b/fund', keyHeaders(), { address: stranger, amount: '1' })).json.code).toBe('FORBIDDEN');
  });

  it('an EIP-1271 wallet deployed through the JSON-RPC URL with viem registers with POST /evm-eoas', async () => {
    // A development account pays the deployment (DATA_DIR/evm-dev-accounts.json, as the README says).
    const devKey = (JSON.parse(readFileSync(join(work, 'data', 'evm-dev-accounts.json'), 'utf8')) as { accounts: Array<{ privateKey: Hex }> }).accounts[0]!.privateKey;
    const { wallet: compiled } = compileWallets();
    const owner = privateKeyToAccount(generatePrivateKey());
    const deployer = createWalletClient({ account: privateKeyToAccount(devKey), chain, transport: http() });
    const hash = await deployer.deployContract({ abi: compiled.abi, bytecode: compiled.bytecode, args: [owner.address] });
    const receipt = await createPublicClient({ chain, transport: http() }).waitForTransactionReceipt({ hash });
    const contract = getAddress(receipt.contractAddress!);

    const challenge = await api('GET', '/evm-eoas/challenge', userHeaders());
    expect(challenge.status).toBe(200);
    const message = messageFor(challenge.json as unknown as ChallengeDto, contract);
    const registered = await api('POST', '/evm-eoas', userHeaders(), { message, signature: await owner.signMessage({ message }) });
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    expect(registered.json).toMatchObject({ userId, address: contract, details: { signer: 'contract' } });
  }, 60_000);
});
