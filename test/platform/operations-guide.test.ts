/**
 * docs/operations.md, run as written: every ```sh block of the guide is run by a scenario below,
 * on a fresh embedded DATA_DIR and (with DATABASE_URL) on fresh PostgreSQL databases. A `bastion`
 * line runs in process (test/helpers/cli.ts, the CLI's own parser on the words of the line);
 * any other line (pg_dump, cp, openssl) runs in bash in the scenario's working folder, with the
 * scenario's variables as its environment. A block whose first line is `# PostgreSQL...` runs on
 * PostgreSQL only, `# embedded...` on the embedded database only. The last test checks that
 * every block of the guide ran: a command added to the guide without a scenario fails it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ownPostgresDatabase, type OwnDatabase } from '../helpers/own-database.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { startControlSocket } from '../../src/control-socket.js';
import { createLogger } from '../../src/platform/log/logger.js';
import { runCliIn, type CliResult } from '../helpers/cli.js';
import { TEST_MASTER_KEY, usingPostgres } from '../helpers/harness.js';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { shBlocks, type ReadmeBlock } from '../helpers/markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GUIDE = 'docs/operations.md';
const blocks = shBlocks(readFileSync(join(ROOT, GUIDE), 'utf8'), GUIDE);
const ran = new Set<ReadmeBlock>();

type Vars = Record<string, string | undefined>;

/** The block's logical lines: continuations joined, comments and blank lines left out. */
function commandLines(block: ReadmeBlock): string[] {
  return block.code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** A `bastion` line's words as the shell gives them: quotes removed, $VAR and "${VAR}" expanded, ./x in the working folder. */
function shellWords(line: string, vars: Vars, cwd: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\s+)|([^\s"']+)/g;
  let word: string | undefined;
  const expand = (text: string) =>
    text.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (_, name: string) => {
      const value = vars[name];
      if (value === undefined) throw new Error(`${GUIDE}: $${name} is not set by this scenario (line: ${line})`);
      return value;
    });
  for (const m of line.matchAll(re)) {
    if (m[3] !== undefined) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word = (word ?? '') + (m[1] !== undefined ? expand(m[1]) : m[2] !== undefined ? m[2] : expand(m[4]!));
  }
  if (word !== undefined) words.push(word);
  return words.map((w) => w.replace(/(^|=)\.\//, (_, before: string) => `${before}${cwd}/`));
}

function blockWith(text: string): ReadmeBlock {
  // A command line that is `text` or starts with it and a space.
  const found = blocks.filter((b) => commandLines(b).some((line) => line === text || line.startsWith(`${text} `)));
  if (found.length !== 1) throw new Error(`${GUIDE}: ${found.length} sh blocks hold a line "${text}..." (expected 1)`);
  return found[0]!;
}

/** The one block of a section. */
function blockOf(section: string): ReadmeBlock {
  const found = blocks.filter((b) => b.section === section);
  if (found.length !== 1) throw new Error(`${GUIDE}: ${found.length} sh blocks in ${section} (expected 1)`);
  return found[0]!;
}

/** The database a block is for: its first line `# PostgreSQL...` or `# embedded...`, else both. */
function blockFor(block: ReadmeBlock): 'postgres' | 'embedded' | undefined {
  const first = block.code.trimStart().split('\n')[0] ?? '';
  return /^# PostgreSQL/.test(first) ? 'postgres' : /^# embedded/.test(first) ? 'embedded' : undefined;
}

/**
 * Runs the guide's block (or the one holding `text`), line by line; every line must succeed.
 * Answers the `bastion` lines' JSON answers in order.
 */
async function runBlock(which: string | ReadmeBlock, vars: Vars, cwd: string): Promise<unknown[]> {
  const block = typeof which === 'string' ? blockWith(which) : which;
  const kind = vars.DATABASE_URL ? 'postgres' : 'embedded';
  if (blockFor(block) && blockFor(block) !== kind) throw new Error(`${GUIDE}:${block.line} is for the ${blockFor(block)} database, run on ${kind}`);
  const answers: unknown[] = [];
  for (const line of commandLines(block)) {
    if (line.startsWith('bastion ')) {
      const result = await runCliIn(vars, ...shellWords(line, vars, cwd).slice(1));
      if (result.code !== 0) throw new Error(`${GUIDE}:${block.line}: ${line} exited ${result.code}: ${result.stderr}`);
      answers.push(JSON.parse(result.stdout));
    } else {
      const env = Object.fromEntries(Object.entries({ PATH: process.env.PATH, ...vars }).filter((e): e is [string, string] => e[1] !== undefined));
      try {
        execFileSync('bash', ['-c', `set -euo pipefail; ${line}`], { cwd, env, stdio: 'pipe' });
      } catch (error) {
        throw new Error(`${GUIDE}:${block.line}: ${line} failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
      }
    }
  }
  ran.add(block);
  return answers;
}

const cli = (vars: Vars, ...args: string[]) => runCliIn(vars, ...args);
async function json(vars: Vars, ...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(vars, ...args);
  if (result.code !== 0) throw new Error(`bastion ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
const failure = (result: CliResult) => ({ code: result.code, ...(JSON.parse(result.stderr || '{}') as { error?: string; message?: string }) });

/** A tenant with a sealed secret the CLI can read back: the bank-link sandbox's test secret (bank-link show). */
async function tenantWithSecret(vars: Vars): Promise<{ tenantId: string; keyId: string; secret: string }> {
  const tenant = await json(vars, 'tenant', 'create', '--name', `ops-${Math.random().toString(36).slice(2, 8)}`);
  const tenantId = String(tenant.tenantId);
  await json(vars, 'bank-link', 'sandbox', '--tenant', tenantId);
  const secret = String((await json(vars, 'bank-link', 'show', '--tenant', tenantId)).sandboxSecret);
  expect(secret.length).toBeGreaterThan(8);
  return { tenantId, keyId: String(tenant.keyId), secret };
}
const sealedSecret = async (vars: Vars, tenantId: string) => (await json(vars, 'bank-link', 'show', '--tenant', tenantId)).sandboxSecret;

/** The key rotations of the guide, on either database. */
async function rotations(vars: Vars, cwd: string, tenant: { tenantId: string; keyId: string }): Promise<void> {
  const [signing] = (await runBlock('bastion keys rotate', vars, cwd)) as Array<{ kid: string }>;
  expect(signing!.kid).toMatch(/\S/);

  const endpoint = await json(vars, 'event-endpoint', 'add', '--tenant', tenant.tenantId, '--url', 'http://127.0.0.1:9/bastion-events');
  const [listed, rotated] = (await runBlock('bastion event-endpoint list', { ...vars, TENANT: tenant.tenantId, ENDPOINT_ID: String(endpoint.id) }, cwd)) as Array<Record<string, unknown>>;
  expect((listed!.data as Array<{ id: string }>).map((e) => e.id)).toContain(endpoint.id);
  expect(rotated!.secret).toMatch(/^whsec_/);
  expect(rotated!.secret).not.toBe(endpoint.secret);
  expect(Date.parse(String(rotated!.previousSecretExpiresAt))).toBeGreaterThan(Date.now());

  const [created, revoked] = (await runBlock('bastion api-key create', { ...vars, TENANT: tenant.tenantId, OLD_KEY_ID: tenant.keyId }, cwd)) as Array<Record<string, unknown>>;
  expect(created!.apiKey).toEqual(expect.any(String));
  expect(revoked).toMatchObject({ keyId: tenant.keyId, revoked: true });

  writeFileSync(join(cwd, 'webhook-secret'), 'a-new-webhook-secret-of-enough-length\n', { mode: 0o600 });
  const [, shown] = (await runBlock('bastion provider configure', { ...vars, TENANT: tenant.tenantId }, cwd)) as Array<Record<string, unknown>>;
  expect(JSON.stringify(shown)).not.toContain('a-new-webhook-secret');
  expect(shown).toMatchObject({ tenantId: tenant.tenantId, baseUrl: 'https://idv.example.com' });
}

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(ONE_PASS_ONLY)('docs/operations.md on the embedded database', () => {
  const work = tempDir('bastion-ops-');
  // No name to resolve for the event endpoint (nothing is delivered: no worker runs in a CLI command).
  const vars: Vars = { DATA_DIR: join(work, 'data'), BACKUP_DIR: join(work, 'backup'), LOG_LEVEL: 'silent', EVENTS_ALLOW_PRIVATE_URLS: 'on' };
  let tenant: { tenantId: string; keyId: string; secret: string };

  it('upgrade (migrate), backup of the stopped DATA_DIR and restore: the restored copy reads its sealed secret and has nothing written after the backup', async () => {
    expect(await runBlock(blockOf('## Upgrading'), vars, work)).toEqual([{ migrated: true }]);
    tenant = await tenantWithSecret(vars);
    await runBlock('cp -a "$DATA_DIR"', vars, work);
    const later = await json(vars, 'tenant', 'create', '--name', 'after-the-backup');

    const [migrated] = await runBlock('mv "$DATA_DIR"', vars, work);
    expect(migrated).toEqual({ migrated: true });
    expect(existsSync(`${vars.DATA_DIR}.broken`)).toBe(true);
    expect(await sealedSecret(vars, tenant.tenantId)).toBe(tenant.secret);
    expect(failure(await cli(vars, 'bank-link', 'show', '--tenant', String(later.tenantId)))).toMatchObject({ code: 1, error: 'TENANT_NOT_FOUND' });
  }, 120_000);

  it('key rotation: signing keys, event endpoint secrets, API keys, provider secrets', async () => {
    await rotations(vars, work, tenant);
  }, 120_000);

  it('the master key in DATA_DIR/master.key: rotated in one step; the secret reads with the new key, the old one fails naming MASTER_KEY and the key file', async () => {
    const keyFile = join(vars.DATA_DIR!, 'master.key');
    const oldKey = readFileSync(keyFile, 'utf8');
    const [answer] = (await runBlock('(umask 077', vars, work)) as Array<Record<string, unknown>>;
    const newKey = readFileSync(join(work, 'new-master.key'), 'utf8');
    expect(statSync(join(work, 'new-master.key')).mode & 0o777).toBe(0o600);
    expect(answer).toMatchObject({ rotated: true, masterKey: keyFile });
    expect(answer!.dataKeys).toBeGreaterThanOrEqual(1);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(newKey.trim());
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(existsSync(`${keyFile}.new`)).toBe(false);
    expect(await sealedSecret(vars, tenant.tenantId)).toBe(tenant.secret);

    // The same key again: refused, nothing done.
    expect(failure(await cli(vars, 'keys', 'rotate-master', '--new-key-file', join(work, 'new-master.key')))).toMatchObject({ code: 2, error: 'usage' });
    writeFileSync(join(work, 'short.key'), 'abcd\n');
    expect(failure(await cli(vars, 'keys', 'rotate-master', '--new-key-file', join(work, 'short.key')))).toMatchObject({ code: 2, error: 'usage', message: expect.stringContaining('32-byte') });

    // The old key back in place: the start fails, naming MASTER_KEY and the key file; nothing is changed.
    writeFileSync(keyFile, oldKey, { mode: 0o600 });
    const refused = failure(await cli(vars, 'bank-link', 'show', '--tenant', tenant.tenantId));
    expect(refused).toMatchObject({ code: 1, error: 'config' });
    expect(refused.message).toContain('MASTER_KEY');
    expect(refused.message).toContain(keyFile);
    expect(refused.message).toContain('cannot unwrap the stored data keys');
    // As an interrupted rotation leaves it: the new key in master.key.new, named by the error.
    writeFileSync(`${keyFile}.new`, newKey, { mode: 0o600 });
    expect(failure(await cli(vars, 'bank-link', 'show', '--tenant', tenant.tenantId)).message).toContain(`${keyFile}.new`);
    execFileSync('mv', [`${keyFile}.new`, keyFile]);
    expect(await sealedSecret(vars, tenant.tenantId)).toBe(tenant.secret);
  }, 120_000);

  it('rotate-master while the service runs: the command runs in it (control socket), which goes on reading its secrets', async () => {
    const config = loadConfig(vars);
    const service = await createContainer({ config });
    // The lock names another live process as the service (this runner's parent), so the CLI sends
    // the command to the socket this process serves, as it would to a running service.
    writeFileSync(join(vars.DATA_DIR!, 'bastion.lock'), JSON.stringify({ pid: process.ppid, role: 'service', startedAt: new Date().toISOString() }));
    const stop = await startControlSocket(vars.DATA_DIR!, service, createLogger('silent'));
    try {
      const sealed = service.secrets.encrypt('kept', 'ops-guide');
      writeFileSync(join(work, 'third.key'), execFileSync('openssl', ['rand', '-hex', '32']));
      const answer = await json(vars, 'keys', 'rotate-master', '--new-key-file', join(work, 'third.key'));
      expect(answer).toMatchObject({ rotated: true, masterKey: join(vars.DATA_DIR!, 'master.key') });
      expect(readFileSync(join(vars.DATA_DIR!, 'master.key'), 'utf8').trim()).toBe(readFileSync(join(work, 'third.key'), 'utf8').trim());
      expect(await service.secrets.decrypt(sealed, 'ops-guide')).toBe('kept');
      // Refusals come back through the socket as the CLI prints them; nothing is left behind.
      expect(failure(await cli(vars, 'keys', 'rotate-master', '--new-key-file', join(work, 'third.key')))).toMatchObject({ code: 2, error: 'usage' });
      expect(existsSync(join(vars.DATA_DIR!, 'master.key.new'))).toBe(false);
      expect((await service.platform.providerSettings.resolve(tenant.tenantId, 'bank-link', 'plaid')).secrets.secret).toBe(tenant.secret);
    } finally {
      await stop();
      await service.close();
      rmSync(join(vars.DATA_DIR!, 'bastion.lock'), { force: true });
    }
    expect(await sealedSecret(vars, tenant.tenantId)).toBe(tenant.secret);
  }, 120_000);
});

describe.runIf(usingPostgres)('docs/operations.md on PostgreSQL', () => {
  const work = tempDir('bastion-ops-pg-');
  const made: OwnDatabase[] = [];
  async function freshDatabase(suffix: string): Promise<string> {
    const database = await ownPostgresDatabase(process.env.DATABASE_URL!, `ops_${suffix}`);
    made.push(database);
    return database.url;
  }
  afterAll(async () => {
    for (const database of made) await database.drop();
  });
  const vars: Vars = { DATA_DIR: join(work, 'data'), MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', EVENTS_ALLOW_PRIVATE_URLS: 'on' };
  let tenant: { tenantId: string; keyId: string; secret: string };

  it('pg_dump while running, pg_restore into an empty database and migrate: the restore reads its sealed secret with the same MASTER_KEY', async () => {
    vars.DATABASE_URL = await freshDatabase('a');
    expect(await runBlock(blockOf('## Upgrading'), vars, work)).toEqual([{ migrated: true }]);
    tenant = await tenantWithSecret(vars);
    await runBlock('pg_dump', vars, work);
    const restored = { ...vars, DATABASE_URL: await freshDatabase('b') };
    expect(await runBlock('pg_restore', restored, work)).toEqual([{ migrated: true }]);
    expect(await sealedSecret(restored, tenant.tenantId)).toBe(tenant.secret);
    const otherKey = failure(await cli({ ...restored, MASTER_KEY: 'ab'.repeat(32) }, 'bank-link', 'show', '--tenant', tenant.tenantId));
    expect(otherKey).toMatchObject({ code: 1, error: 'config' });
    expect(otherKey.message).toMatch(/^Invalid configuration: MASTER_KEY cannot unwrap the stored data keys/);
  }, 120_000);

  it('key rotation: signing keys, event endpoint secrets, API keys, provider secrets', async () => {
    await rotations(vars, work, tenant);
  }, 120_000);

  it('MASTER_KEY rotated: a running instance goes on; a start with the old key fails naming MASTER_KEY and changes nothing; the new key reads the secret', async () => {
    const running = await createContainer({ config: loadConfig(vars) });
    try {
      const [answer] = (await runBlock('(umask 077', vars, work)) as Array<Record<string, unknown>>;
      expect(answer).toMatchObject({ rotated: true, masterKey: 'MASTER_KEY', next: expect.stringContaining('set MASTER_KEY') });
      expect((await running.platform.providerSettings.resolve(tenant.tenantId, 'bank-link', 'plaid')).secrets.secret).toBe(tenant.secret);
    } finally {
      await running.close();
    }
    const refused = failure(await cli(vars, 'bank-link', 'show', '--tenant', tenant.tenantId));
    expect(refused).toMatchObject({ code: 1, error: 'config' });
    expect(refused.message).toMatch(/^Invalid configuration: MASTER_KEY cannot unwrap the stored data keys/);
    const newKey = readFileSync(join(work, 'new-master.key'), 'utf8').trim();
    expect(await sealedSecret({ ...vars, MASTER_KEY: newKey }, tenant.tenantId)).toBe(tenant.secret);
    // A current key that does not open the data keys: refused before anything is rewrapped.
    writeFileSync(join(work, 'fourth.key'), 'cd'.repeat(32));
    expect(failure(await cli(vars, 'keys', 'rotate-master', '--new-key-file', join(work, 'fourth.key')))).toMatchObject({ code: 1, error: 'config' });
    expect(await sealedSecret({ ...vars, MASTER_KEY: newKey }, tenant.tenantId)).toBe(tenant.secret);
    // The dump taken before the rotation still needs the old key (the guide says to keep it).
    expect(existsSync(join(work, 'bastion.dump'))).toBe(true);
  }, 120_000);
});

describe('docs/operations.md', () => {
  it('every sh block of the guide ran in a scenario of this pass', () => {
    // The embedded scenario runs on the PGlite pass (its subject does not depend on the pass);
    // the PostgreSQL one where DATABASE_URL is set.
    const skipped = (b: ReadmeBlock) => (blockFor(b) === 'postgres' && !usingPostgres) || (blockFor(b) === 'embedded' && ONE_PASS_ONLY);
    const left = blocks.filter((b) => !ran.has(b) && !skipped(b)).map((b) => `${GUIDE}:${b.line} (${b.section}): ${commandLines(b).join(' ; ')}`);
    expect(left).toEqual([]);
    expect(blocks.filter((b) => b.notRun !== undefined)).toEqual([]);
  });
});
