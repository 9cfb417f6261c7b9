// `npm run bench:peer`: the same sign-up load against Bastion and against better-auth (the Node
// peer of issue #30), on the same PostgreSQL server, each with a fresh database of its own:
// better-auth PEER_VERSION (bench/peer/package.json, installed here on demand with
// `npm ci --prefix bench/peer`: never a dependency of the service) with argon2id m=19456 t=2
// p=1 through @node-rs/argon2, the bearer and jwt (EdDSA) plugins, its rate limiter off and a
// pool of 20 (bench/peer/server.mjs); Bastion as `npm run bench` runs it (bench/service-main).
// Each side first takes 1,000 sign-ups, then 3 interleaved rounds of BENCH_DURATION seconds
// (after a warm-up), each a new set of emails; prints requests/s and CPU ms per request of the
// server process and of its database's PostgreSQL backends, and writes the means to
// bench/.data/peer-result.json, which the Targets block of `npm run bench` reads (goal 1).
// Two more sides run in the same rounds on Bastion's database: the sign-up's bound (the ceiling
// server's POST /signup-bound: the least a sign-up with its verification mail must do) and the
// same bound with the mail left unsent (what sending it costs; the peer sends none).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { packageRoot } from '../../src/platform/db/migrate.js';
import { inParallel } from '../flows/http.js';
import { chooseBackend, type LoadBackend, type LoadResult, type RequestSpec } from '../load/index.js';
import { idleCpuBusy, machineLine, postgresCpuMs, processCpuMs } from '../machine.js';
import { startServer, type ServerProcess } from '../processes.js';
import { measureArgon2 } from '../argon2-ceiling.js';
import { PEER_RESULT_FILE, type PeerResult } from '../report.js';
import { createBenchTenant, LOGIN_PASSWORD } from '../seed.js';
import { readSettings } from '../settings.js';

const root = packageRoot();
const peerDir = join(root, 'bench', 'peer');
const log = (line: string) => process.stdout.write(line + '\n');
const PRELOAD_USERS = 1_000;
const ROUNDS = 3;
/** Sign-ups hash a password each: 16 connections keep both password pools busy without Bastion's queue refusing (503). */
const CONNECTIONS = 16;

function peerVersion(): string {
  const pkg = JSON.parse(readFileSync(join(peerDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  return pkg.dependencies['better-auth']!;
}

/** bench/peer/node_modules as its lock file says (npm ci), unless it already holds that better-auth. */
function installPeer(version: string): void {
  const installed = join(peerDir, 'node_modules', 'better-auth', 'package.json');
  if (existsSync(installed) && (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version === version) return;
  log(`installing the peer (better-auth ${version}): npm ci --prefix bench/peer`);
  execFileSync('npm', ['ci', '--prefix', peerDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

/** Drops and creates `name` on the bench's PostgreSQL server; answers its URL. */
async function freshDatabase(server: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: `${server}/postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return `${server}/${name}`;
}

interface Side {
  name: string;
  server: ServerProcess;
  database: string;
  signUp: (email: string) => RequestSpec;
}

const json = { 'content-type': 'application/json' };

function requests(side: Side, label: string, count: number): RequestSpec[] {
  return Array.from({ length: count }, (_, i) => side.signUp(`${label}-${i}@peer.bench.example`));
}

interface Measured {
  result: LoadResult;
  serverMs: number;
  dbMs: number;
}

async function measure(backend: LoadBackend, side: Side, label: string, durationSec: number, warmupSec: number): Promise<Measured> {
  // Enough distinct emails for 2,000 sign-ups a second; each is used once.
  const count = Math.max(2_000, 2_000 * (durationSec + warmupSec));
  if (warmupSec > 0) await backend.run(side.server.baseUrl, { connections: CONNECTIONS, once: true, requests: requests(side, `${label}-warm`, count), durationSec: warmupSec });
  const before = { server: processCpuMs(side.server.pid), db: postgresCpuMs(side.database) };
  const result = await backend.run(side.server.baseUrl, { connections: CONNECTIONS, once: true, requests: requests(side, label, count), durationSec });
  const n = Math.max(1, result.requests);
  const m = { result, serverMs: (processCpuMs(side.server.pid) - before.server) / n, dbMs: (postgresCpuMs(side.database) - before.db) / n };
  log(
    `  ${side.name}: ${result.rps.toFixed(0)}/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ` +
      `CPU/request ${m.serverMs.toFixed(2)} ms + PostgreSQL ${m.dbMs.toFixed(2)} ms${result.failures ? `, ${result.failures} failed` : ''}${result.exhausted ? ', emails exhausted: invalid' : ''}`,
  );
  return m;
}

async function main(): Promise<void> {
  const s = readSettings();
  const version = peerVersion();
  installPeer(version);
  const busy = await idleCpuBusy();
  const backend = chooseBackend(s.tool, log);
  const pgServer = process.env.BENCH_PG_SERVER || 'postgres://postgres@127.0.0.1:5432';
  const prefix = process.env.BENCH_PEER_DB_PREFIX || 'bastion_bench_peer';
  const bastionDb = `${prefix}_bastion`;
  const peerDb = `${prefix}_better_auth`;
  const bastionUrl = await freshDatabase(pgServer, bastionDb);
  const peerUrl = await freshDatabase(pgServer, peerDb);
  const dataDir = join(s.dataDir, 'peer-bastion');
  mkdirSync(dataDir, { recursive: true });
  const env = {
    DATABASE_URL: bastionUrl, DATA_DIR: dataDir, MASTER_KEY: process.env.MASTER_KEY, HOST: '127.0.0.1', PORT: String(s.servicePort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${s.servicePort}`, EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0',
  };

  // Bastion's tenant, as `bastion tenant create` makes it (the container migrates the database).
  const container = await createContainer({ config: loadConfig({ ...env, LOG_LEVEL: 'warn' }) });
  let tenantId: string;
  try {
    tenantId = (await createBenchTenant(container, 'bench-peer')).tenantId;
  } finally {
    await container.close();
  }

  const bastion: Side = {
    name: 'Bastion POST /auth/email',
    database: bastionDb,
    server: await startServer({ name: 'service', script: join(root, 'dist', 'bench', 'service-main.js'), env: { ...env, LOG_LEVEL: s.logLevel }, port: s.servicePort, nodeArgs: s.nodeFlags }),
    signUp: (email) => ({ method: 'POST', path: '/auth/email', headers: { ...json, 'x-tenant-id': tenantId }, body: JSON.stringify({ email, password: LOGIN_PASSWORD, fullName: 'Peer Bench' }) }),
  };
  const peerPort = s.ceilingPort;
  const boundPort = s.ceilingPort + 1;
  let peer: Side | undefined;
  let bound: Side | undefined;
  try {
    peer = {
      name: `better-auth ${version} POST /api/auth/sign-up/email`,
      database: peerDb,
      server: await startServer({ name: 'better-auth', script: join(peerDir, 'server.mjs'), env: { PORT: String(peerPort), PEER_DATABASE_URL: peerUrl }, port: peerPort, nodeArgs: s.nodeFlags }),
      // Origin: its own base URL (trusted); fetch's sec-fetch-mode would be refused without one.
      signUp: (email) => ({ method: 'POST', path: '/api/auth/sign-up/email', headers: { ...json, origin: `http://127.0.0.1:${peerPort}` }, body: JSON.stringify({ email, password: LOGIN_PASSWORD, name: 'Peer Bench' }) }),
    };
    // What bounds Bastion's sign-up: the least it must do (bench/ceiling-server.ts,
    // POST /signup-bound), on Bastion's database, measured in the same rounds.
    bound = {
      name: 'bound: POST /signup-bound (the policy check, the hash through the service\'s pool, the rows in one statement, the mail rendered and written as the file transport does)',
      database: bastionDb,
      server: await startServer({
        name: 'sign-up bound',
        script: join(root, 'dist', 'bench', 'ceiling-server.js'),
        env: { ...env, PORT: String(boundPort), LOG_LEVEL: s.logLevel, BENCH_TENANT_ID: tenantId, BENCH_SIGNUP_BOUND: '1' },
        port: boundPort,
        nodeArgs: s.nodeFlags,
      }),
      signUp: (email) => ({ method: 'POST', path: '/signup-bound', headers: json, body: JSON.stringify({ email, password: LOGIN_PASSWORD, fullName: 'Peer Bench' }) }),
    };
    // The same bound with the mail left unsent: what sending the verification mail costs.
    const unsent: Side = {
      name: 'the bound with the mail written to its row and not sent (POST /signup-bound-unsent)',
      database: bastionDb,
      server: bound.server,
      // Its own addresses: it writes to the same table as the bound.
      signUp: (email) => ({ ...bound!.signUp(`unsent-${email}`), path: '/signup-bound-unsent' }),
    };
    const sides = [bastion, peer, bound, unsent];
    for (const side of sides) {
      let failed = 0;
      await inParallel(requests(side, 'preload', PRELOAD_USERS), CONNECTIONS, async (request) => {
        const answer = await fetch(side.server.baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body ?? null });
        await answer.arrayBuffer();
        if (!answer.ok) failed++;
      });
      log(`${side.name}: ${PRELOAD_USERS} users signed up first (${failed} failed)`);
      if (failed > 0) throw new Error(`${side.name}: ${failed} of the first ${PRELOAD_USERS} sign-ups failed`);
    }
    const runs = new Map<Side, Measured[]>(sides.map((side) => [side, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}:`);
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) runs.get(side)!.push(await measure(backend, side, `r${round}`, s.durationSec, s.warmupSec));
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const summary = (side: Side) => {
      const m = runs.get(side)!;
      return { rps: mean(m.map((x) => x.result.rps)), serverMs: mean(m.map((x) => x.serverMs)), dbMs: mean(m.map((x) => x.dbMs)), failures: m.reduce((a, x) => a + x.result.failures, 0) };
    };
    const a = summary(bastion);
    const b = summary(peer);
    const c = summary(bound);
    const d = summary(unsent);
    log('');
    log(`Sign-up on ${machineLine()}, PostgreSQL ${new URL(pgServer).host}, load by ${backend.name}, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${s.durationSec} s after ${s.warmupSec} s of warm-up, ${PRELOAD_USERS} users each first; CPU busy before the run: ${(busy * 100).toFixed(0)}%.`);
    log('');
    log('| sign-up | requests/s (mean of rounds) | CPU ms/request: server + PostgreSQL | failed |');
    log('|---|---:|---:|---:|');
    for (const [side, x] of [[bastion, a], [peer, b], [bound, c], [unsent, d]] as const) log(`| ${side.name} | ${x.rps.toFixed(0)} | ${x.serverMs.toFixed(2)} + ${x.dbMs.toFixed(2)} | ${x.failures} |`);
    log('');
    log(`Bastion / better-auth: ${(a.rps / b.rps).toFixed(2)}× (goal: 1.3× or more)`);
    log(`the bound / better-auth: ${(c.rps / b.rps).toFixed(2)}×; Bastion / the bound: ${((100 * a.rps) / c.rps).toFixed(0)}%; the bound without sending the mail / better-auth: ${(d.rps / b.rps).toFixed(2)}×`);
    // The bound the hash sets: both servers hash the password once per sign-up with the same
    // parameters, on the same two cores. Bastion's sign-up costs at least that hash plus its
    // database writes (taken here as low as the peer's own): the peer's whole cost over that
    // is the most Bastion could be ahead, whatever else it stopped doing.
    const hashed = await measureArgon2('plain', s.warmupSec, s.durationSec);
    const peerTotal = b.serverMs + b.dbMs;
    const boundRatio = peerTotal / (hashed.cpuMs + b.dbMs);
    log(`argon2id alone at the same parameters (@node-rs/argon2, libuv threads, ${hashed.concurrency} in flight): ${hashed.cpuMs.toFixed(2)} ms CPU a hash (measured as verifications, which compute the same hash)`);
    log(`bound: a Bastion sign-up costing only that hash and the peer's database work (${b.dbMs.toFixed(2)} ms) would be ${boundRatio.toFixed(2)}× the peer (its whole cost ${peerTotal.toFixed(2)} ms); Bastion's non-hash cost now: ${(a.serverMs + a.dbMs - hashed.cpuMs).toFixed(2)} ms, the peer's: ${(peerTotal - hashed.cpuMs).toFixed(2)} ms`);
    // A round with failed sign-ups, or too short to complete a few dozen, measures nothing.
    const invalid = [...runs.values()].flat().filter((m) => m.result.failures > 0 || m.result.exhausted || m.result.requests < 50);
    if (invalid.length > 0) {
      throw new Error(`not recorded: ${invalid.length} measurement(s) had failures, ran out of emails or completed fewer than 50 sign-ups (a longer BENCH_DURATION, an idle machine)`);
    }
    const result: PeerResult = { measuredAt: new Date().toISOString(), betterAuthVersion: version, bastionRps: a.rps, peerRps: b.rps, hashCpuMs: hashed.cpuMs, boundRatio, signupBoundRps: c.rps, signupBoundUnsentRps: d.rps };
    writeFileSync(join(root, PEER_RESULT_FILE), JSON.stringify(result, null, 2) + '\n');
    log(`written to ${PEER_RESULT_FILE} (the Targets block of npm run bench shows it)`);
  } finally {
    await bastion.server.stop();
    await peer?.server.stop();
    await bound?.server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:peer failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
