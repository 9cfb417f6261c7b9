import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ONE_PASS_ONLY } from '../helpers/passes.js';

/**
 * @bastion/client as its users get it: `npm pack` in clients/typescript (prepack builds it with
 * tsc), the tarball unpacked into a fresh directory's node_modules beside its one dependency
 * (openapi-fetch), as `npm install <tarball>` lays it out. A consumer file is type-checked
 * against the packed declarations, and the packed JavaScript drives a listening app: sign up,
 * log in, read /users/me, register a wallet and page lists, with no casts.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const clientDir = join(root, 'clients', 'typescript');

// It starts npm and tsc, and its subject (the package) does not depend on the database kind: the PGlite pass runs it.
describe.skipIf(ONE_PASS_ONLY)('the packed @bastion/client', () => {
  let h: Harness;
  let installDir: string;
  let packedFiles: string[];
  let bastion: typeof import('../../clients/typescript/src/index.js');

  beforeAll(async () => {
    h = await createHarness({ listen: true });
    installDir = mkdtempSync(join(tmpdir(), 'bastion-client-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', installDir], { cwd: clientDir, maxBuffer: 16 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    packedFiles = packed!.files.map((f) => f.path).sort();
    const target = join(installDir, 'node_modules', '@bastion', 'client');
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', join(installDir, packed!.filename), '-C', target, '--strip-components=1']);
    for (const dependency of ['openapi-fetch', 'openapi-typescript-helpers']) {
      symlinkSync(join(root, 'node_modules', dependency), join(installDir, 'node_modules', dependency), 'dir');
    }
    bastion = await import(pathToFileURL(join(target, 'dist', 'index.js')).href);
  }, 180_000);

  afterAll(async () => {
    await h.close();
    rmSync(installDir, { recursive: true, force: true });
  });

  it('holds the built code, its declarations and the README; not the sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'dist/types.d.ts']),
    );
    expect(packedFiles.filter((f) => f.startsWith('src/'))).toEqual([]);
  });

  it('type-checks a consumer and the READMEs’ examples against the packed declarations (named types, typed headers)', async () => {
    writeFileSync(join(installDir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(
      join(installDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noEmit: true },
        files: ['consumer.ts', 'readme-api.ts', 'readme-client.ts'],
      }),
    );
    // The ```ts examples of the README's API section and of the client's README, as an app would hold them.
    const example = (file: string, section: RegExp, given: string) => {
      const text = readFileSync(file, 'utf8');
      const from = text.search(section);
      const block = /```ts\n([\s\S]*?)```/.exec(text.slice(from));
      if (from < 0 || !block) throw new Error(`${file}: no ts example after ${section}`);
      return `${given}${block[1]!.replace(/^ {2}/gm, '')}\nexport {};\n`;
    };
    writeFileSync(join(installDir, 'readme-api.ts'), example(join(root, 'README.md'), /^## API$/m, 'declare const tenantId: string, apiKey: string, email: string, password: string;\n'));
    writeFileSync(join(installDir, 'readme-client.ts'), example(join(clientDir, 'README.md'), /^## Use$/m, 'declare const process: { env: Record<string, string | undefined> };\n'));
    writeFileSync(
      join(installDir, 'consumer.ts'),
      [
        "import { createBastionClient, type TokenPair, type UserProfile, type ErrorBody } from '@bastion/client';",
        "const admin = createBastionClient({ baseUrl: 'https://bastion.example.org', tenantId: 't', apiKey: 'k' });",
        'export async function me(pair: TokenPair): Promise<UserProfile | ErrorBody | undefined> {',
        "  const client = createBastionClient({ baseUrl: 'https://bastion.example.org', tenantId: 't', accessToken: pair.accessToken });",
        "  const { data, error } = await client.GET('/users/me');",
        '  return data ?? error;',
        '}',
        "export const list = admin.GET('/users', { params: { query: { limit: 10, offset: 0 } } });",
        '// @ts-expect-error one credential at a time',
        "createBastionClient({ baseUrl: 'x', tenantId: 't', apiKey: 'k', accessToken: 'a' });",
        '// @ts-expect-error the tenant is required',
        "createBastionClient({ baseUrl: 'x' });",
        '// @ts-expect-error no such path',
        "void admin.GET('/no-such-path');",
        '',
      ].join('\n'),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', join(installDir, 'tsconfig.json')], { cwd: installDir }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(result.stdout).toBe('');
  }, 120_000);

  it('signs up, logs in, reads /users/me, registers a wallet and pages a list against a listening app', async () => {
    const { createBastionClient } = bastion;
    const { tenantId, apiKey } = h.tenant;
    const anonymous = createBastionClient({ baseUrl: h.baseUrl, tenantId });
    const email = `packed-${randomUUID()}@example.com`;
    const password = 'packed client passphrase 7';

    const signUp = await anonymous.POST('/auth/email', { body: { email, password, fullName: 'Packed Client' } });
    expect(signUp.response.status).toBe(201);
    expect(signUp.data?.email).toBe(email);
    expect(signUp.response.headers.get('x-request-id')).toBeTruthy();

    const wrong = await anonymous.POST('/auth/email/login', { body: { email, password: 'not the password at all' } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error?.code).toBe('INVALID_CREDENTIALS');

    const login = await anonymous.POST('/auth/email/login', { body: { email, password } });
    expect(login.response.status).toBe(201);
    const pair = login.data;
    if (!pair || !('accessToken' in pair)) throw new Error(`login gave no token pair: ${JSON.stringify(login.data ?? login.error)}`);

    const user = createBastionClient({ baseUrl: h.baseUrl, tenantId, accessToken: pair.accessToken });
    const me = await user.GET('/users/me');
    expect(me.response.status).toBe(200);
    expect(me.data?.email).toBe(email);
    expect(me.data?.walletAddresses.evm).toBeNull();

    const account = privateKeyToAccount(generatePrivateKey());
    const challenge = await user.GET('/evm-eoas/challenge');
    if (!challenge.data) throw new Error(`no challenge: ${JSON.stringify(challenge.error)}`);
    const { chainId, domain, nonce, uri, issuedAt, expirationTime, statement } = challenge.data;
    const message = createSiweMessage({
      address: account.address,
      chainId,
      domain,
      nonce,
      uri,
      version: '1',
      issuedAt: new Date(issuedAt),
      expirationTime: new Date(expirationTime),
      statement,
    });
    const registered = await user.POST('/evm-eoas', { body: { message, signature: await account.signMessage({ message }) } });
    expect(registered.response.status, JSON.stringify(registered.error)).toBe(201);
    expect(registered.data?.address).toBe(account.address);
    expect(registered.data?.kind).toBe('evm-eoa');

    const wallets = await user.GET('/evm-eoas', { params: { query: { limit: 1, offset: 0 } } });
    expect(wallets.data?.total).toBe(1);
    expect(wallets.data?.data.map((w) => w.address)).toEqual([account.address]);

    // The tenant's back end pages its users, one a page.
    const backEnd = createBastionClient({ baseUrl: h.baseUrl, tenantId, apiKey });
    const first = await backEnd.GET('/users', { params: { query: { limit: 1, offset: 0, email } } });
    expect(first.data?.total).toBe(1);
    expect(first.data?.data[0]?.id).toBe(me.data?.id);
    const past = await backEnd.GET('/users', { params: { query: { limit: 1, offset: 1, email } } });
    expect(past.data?.data).toEqual([]);
    expect(readdirSync(join(installDir, 'node_modules', '@bastion', 'client', 'dist'))).toContain('index.js');
  });
});
