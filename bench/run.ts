// `npm run bench`: seeds a tenant of 1,000,000 users (and one of 10,000), starts the built
// service in its own process, drives each route over loopback, measures the ceilings in the
// same run, and writes bench/results.md. README "Benchmark" says how to read it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { alternatePaced, medianP99Ratio } from './alternate.js';
import { measureBurst } from './burst.js';
import { measureArgon2, type Argon2Ceiling } from './argon2-ceiling.js';
import { prepareDatabase, type BenchDatabase } from './database.js';
import { chooseBackend, type LoadBackend, type LoadResult, type LoadSpec } from './load/index.js';
import { idleCpuBusy, machineLine, postgresCpuMs, processCpuMs } from './machine.js';
import { startServer, type ServerProcess } from './processes.js';
import { afterIdTable, burstTable, evaluateTargets, flowTable, readPeerResult, table, targetList, type AfterIdResult, type BurstResult, type Row } from './report.js';
import { buildScenarios, flowScenarios, loginBoundBurst, loginBurst, webhookRequests, type CeilingKind, type Scenario, type ScenarioData } from './scenarios.js';
import { FLOW_KEYS, flowsPhase, freshAccessTokens, prepareReads, READ_USERS, settleService, type FlowRow } from './flows/index.js';
import {
  addLoginPasswords,
  bulkInsertUsers,
  checkRowCount,
  createBenchTenant,
  idvAWebhookSecret,
  LOGIN_PASSWORD,
  mintAccessTokens,
  mintRefreshTokens,
  sampleUserIds,
  seedKycAttempts,
  type SeededTenant,
} from './seed.js';
import { readSettings, type BenchSettings } from './settings.js';
import { eventsPhase, eventsTable } from './events.js';
import { startStatementCapture, statements } from './statements.js';

/** Accounts the login load rotates through. */
const LOGIN_ACCOUNTS = 64;

const log = (line: string) => process.stdout.write(line + '\n');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/** The rows after the value-moving ones: the decision webhook and the reads of what the flows left. */
const FLOW_SCENARIO_KEYS = ['webhook', 'kyc-attempts', 'evm-eoas', 'xrpl-wallets'];
const READ_KEYS = ['kyc-attempts', 'evm-eoas', 'xrpl-wallets'];

/** node flags writing a CPU profile of a server (BENCH_CPU_PROF=1) into bench/.data/profiles/<name>. */
const cpuProf = (s: BenchSettings, name: string) => (s.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${s.cpuProfDir}/${name}`] : []);

/** Environment shared by the seeding container, the service and the ceiling server. */
function baseEnv(s: BenchSettings, db: BenchDatabase): Record<string, string | undefined> {
  return {
    DATABASE_URL: db.url,
    DATA_DIR: s.dataDir,
    MASTER_KEY: process.env.MASTER_KEY,
    REDIS_URL: process.env.REDIS_URL,
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${s.servicePort}`,
    // The local chains on free ports (named by GET /ready): another service on this machine may hold 8545 and 6006.
    EVM_LOCAL_RPC_PORT: '0',
    XRPL_LOCAL_PORT: '0',
  };
}

/**
 * The local chains' state and the stored documents of earlier runs: the chains would replay
 * every earlier run's transactions at each start, and the blobs would pile up. The database
 * is new (or the bench's tenants are), so nothing the run reads points at them.
 */
function clearEarlierRuns(s: BenchSettings): void {
  for (const name of ['evm-local-chain.journal', 'xrpl-standin.json', 'xrpl-standin.json.journal', 'blobs']) {
    rmSync(join(s.dataDir, name), { recursive: true, force: true });
  }
}

async function seed(s: BenchSettings, db: BenchDatabase, run: (key: string) => boolean): Promise<ScenarioData> {
  const started = Date.now();
  const config = loadConfig({ ...baseEnv(s, db), LOG_LEVEL: 'warn', PORT: String(s.servicePort) });
  const container = await createContainer({ config });
  try {
    const tenant = async (name: string, count: number): Promise<SeededTenant> => {
      const { tenantId, apiKey } = await createBenchTenant(container, name);
      log(`tenant ${name}: ${count.toLocaleString('en')} users`);
      await bulkInsertUsers(container.database.db, tenantId, count, log);
      const userCount = await checkRowCount(container.database.db, tenantId);
      const sampleIds = await sampleUserIds(container.database.db, tenantId, userCount, s.tokenUsers);
      return { tenantId, apiKey, userCount, sampleIds };
    };
    const big = await tenant('bench-big', s.bigUsers);
    const small = await tenant('bench-small', s.smallUsers);
    const loginEmails = await addLoginPasswords(container, big.tenantId, LOGIN_ACCOUNTS);
    // The decision webhooks' attempts (the KYC read lists them too) and the tenant's idv-a secret.
    const attempts = run('webhook') || run('kyc-attempts') ? await seedKycAttempts(container.database.db, big.tenantId, big.sampleIds, s.webhooks) : [];
    const webhook = { secret: await idvAWebhookSecret(container, big.tenantId), attempts };
    // One per bearer user, in order: the flow rows run past the access tokens' 15 minutes.
    const flowRefreshTokens = await mintRefreshTokens(container.database.db, big.tenantId, big.sampleIds, big.sampleIds.length);
    // Access tokens last 15 minutes: minted last, just before the service starts.
    const refreshTokens = await mintRefreshTokens(container.database.db, big.tenantId, big.sampleIds, s.refreshTokens);
    const accessTokens = await mintAccessTokens(container, big.tenantId, big.sampleIds);
    log(`seeded in ${seconds(started)} (row_counts checked; ${accessTokens.length} sessions, ${refreshTokens.length} refresh tokens)`);
    return { big, small, loginEmails, loginPassword: LOGIN_PASSWORD, accessTokens, refreshTokens, connections: s.connections, webhook, flowRefreshTokens };
  } finally {
    await container.close();
  }
}

/** Warm-up, then the measured run: its RSS peak, and the CPU the server and PostgreSQL spent per request. */
async function measure(
  backend: LoadBackend,
  server: ServerProcess,
  s: BenchSettings,
  db: BenchDatabase,
  label: string,
  warmup: Omit<LoadSpec, 'durationSec'>,
  spec: Omit<LoadSpec, 'durationSec'>,
): Promise<{ result: LoadResult; rssMb: number; cpu: NonNullable<Row['cpu']> }> {
  if (s.warmupSec > 0) await backend.run(server.baseUrl, { ...warmup, durationSec: s.warmupSec });
  await statements.reset();
  server.takePeakRss();
  const cpuBefore = { server: processCpuMs(server.pid), db: db.name ? postgresCpuMs(db.name) : 0 };
  const result = await backend.run(server.baseUrl, { ...spec, durationSec: s.durationSec });
  const rssMb = server.takePeakRss();
  await statements.record(label, result.requests);
  const n = Math.max(1, result.requests);
  const cpu = {
    serverMs: (processCpuMs(server.pid) - cpuBefore.server) / n,
    dbMs: db.name ? (postgresCpuMs(db.name) - cpuBefore.db) / n : undefined,
  };
  log(
    `  ${label}: ${result.rps.toFixed(0)}/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, RSS ${rssMb.toFixed(0)} MiB, ` +
      `CPU/request ${cpu.serverMs.toFixed(2)} ms + PostgreSQL ${cpu.dbMs?.toFixed(2) ?? '-'} ms${result.failures ? `, ${result.failures} failed` : ''}`,
  );
  return { result, rssMb, cpu };
}

/**
 * GET /users/me at a steady `rate`, alone and while logins saturate the password pool
 * (bench/burst.ts); with the ceiling server, its bound in the same rounds: the bare PK SELECT
 * at the same rate, alone and during the same logins to its POST /login-bound.
 */
async function burst(backend: LoadBackend, service: ServerProcess, s: BenchSettings, d: ScenarioData, rate: number, pair: PairedCeiling | undefined): Promise<BurstResult> {
  const meScenario = buildScenarios(d).find((scenario) => scenario.key === 'me')!;
  const me = { ...meScenario.measure, connections: 16, rate, durationSec: s.durationSec };
  const bound = pair ? { baseUrl: pair.server.baseUrl, me: { ...pair.spec, connections: 16, rate, durationSec: s.durationSec }, login: loginBoundBurst(d) } : undefined;
  const measured = await measureBurst(service.baseUrl, backend, me, loginBurst(d), { warmupSec: s.warmupSec, log, ...(bound ? { bound } : {}) });
  log(`  /users/me p99 alone ${measured.alone.p99Ms.toFixed(2)} ms, during login burst ${measured.duringBurst.p99Ms.toFixed(2)} ms pooled (${measured.rounds} rounds); the median of the rounds' ratios ${measured.medianRatio.toFixed(2)}×`);
  if (measured.bound) {
    log(`  its bound: p99 alone ${measured.bound.alone.p99Ms.toFixed(2)} ms, during ${measured.bound.duringBurst.p99Ms.toFixed(2)} ms pooled; the median of the rounds' ratios ${measured.bound.medianRatio.toFixed(2)}×`);
  }
  return { rate, ...measured };
}

/** Rounds of the afterId comparison (each a segment on the 1M-user tenant, then one on the 10k one). */
const AFTER_ID_ROUNDS = 5;

/**
 * GET /users?afterId= on the 1M-user tenant and on the 10k one at the same steady `rate`, in
 * alternating segments (bench/alternate.ts) that share BENCH_DURATION: the goal compares the
 * two p99s, and the closed-loop rows, a minute apart, compared the machine's speed at two
 * moments as much as the two tables (1.76× in one run, 1.12× for the same rows run again).
 */
async function afterIdCompared(service: ServerProcess, s: BenchSettings, d: ScenarioData, rate: number): Promise<AfterIdResult> {
  const scenarios = buildScenarios(d);
  const spec = (key: string) => ({ ...scenarios.find((scenario) => scenario.key === key)!.measure, connections: 16, rate, durationSec: s.durationSec });
  log(`  afterId at a steady ${rate}/s, ${d.big.userCount.toLocaleString('en')} and ${d.small.userCount.toLocaleString('en')} users alternating:`);
  const { pooled, rounds } = await alternatePaced(service.baseUrl, [{ spec: spec('after-big') }, { spec: spec('after-small') }], {
    durationSec: s.durationSec,
    rounds: AFTER_ID_ROUNDS,
    warmupSec: s.warmupSec,
    log: (round, [b, sm]) => log(`    round ${round + 1}: p99 ${b!.p99Ms.toFixed(1)} ms at ${d.big.userCount.toLocaleString('en')}, ${sm!.p99Ms.toFixed(1)} ms at ${d.small.userCount.toLocaleString('en')}`),
  });
  const [big, small] = pooled;
  const medianRatio = medianP99Ratio(rounds, 1, 0);
  log(`  afterId p99 ${big!.p99Ms.toFixed(2)} ms against ${small!.p99Ms.toFixed(2)} ms pooled; the median of the rounds' ratios ${medianRatio.toFixed(2)}×`);
  return {
    rate,
    rounds: AFTER_ID_ROUNDS,
    big: big!,
    small: small!,
    bigUsers: d.big.userCount,
    smallUsers: d.small.userCount,
    roundRatios: rounds.map(([b, sm]) => b!.p99Ms / sm!.p99Ms),
    medianRatio,
  };
}

interface ServicePhase {
  rows: Row[];
  /** The argon2id ceiling through the service's pool, measured just before and just after the login row. */
  argon2Around: Argon2Ceiling[];
  byKey: Map<string, Row & { ceilingKind: CeilingKind; pairedPk?: { before: number; after: number }; pairedBound?: { what: string; before: number; after: number } }>;
  burst?: BurstResult;
  afterId?: AfterIdResult;
  flows: FlowRow[];
  peakRssMb: number;
  errors: { count: number; last: string[] };
}

/** The service in its own process: every selected route, then the burst measurement. */
async function servicePhase(
  s: BenchSettings,
  db: BenchDatabase,
  data: ScenarioData,
  backend: LoadBackend,
  run: (key: string) => boolean,
  pair: PairedCeiling | undefined,
  boundServer: ServerProcess | undefined,
): Promise<ServicePhase> {
  log(`service (node ${s.nodeFlags.join(' ')} dist/bench/service-main.js):`);
  const service = await startServer({
    name: 'service',
    script: here('./service-main.js'),
    env: { ...baseEnv(s, db), PORT: String(s.servicePort), LOG_LEVEL: s.logLevel, METRICS_PORT: process.env.BENCH_METRICS_PORT ?? 'off' },
    port: s.servicePort,
    nodeArgs: [...s.nodeFlags, ...cpuProf(s, 'service')],
  });
  try {
    const rows: Row[] = [];
    const byKey: ServicePhase['byKey'] = new Map();
    const argon2Around: Argon2Ceiling[] = [];
    const measureScenarios = async (scenarios: Scenario[]) => {
      for (const scenario of scenarios) {
        if (!run(scenario.key)) continue;
        // The machine's speed drifts (a shared host): login is compared with the argon2id
        // ceiling measured right before and right after it, with the service idle.
        if (scenario.ceiling === 'argon2') argon2Around.push(await argon2Ceiling(s, 'pool', 'before login'));
        const pkBefore = scenario.ceiling === 'pk' && pair ? await pairedPk(pair, 'before') : undefined;
        const boundBefore = scenario.bound && pair ? await pairedBound(pair, scenario.bound, 'before') : undefined;
        const measured = await measure(backend, service, s, db, scenario.route, scenario.warmup, scenario.measure);
        if (scenario.ceiling === 'argon2') argon2Around.push(await argon2Ceiling(s, 'pool', 'after login'));
        const boundAfter = scenario.bound && pair ? await pairedBound(pair, scenario.bound, 'after') : undefined;
        const pkAfter = pkBefore !== undefined && pair ? await pairedPk(pair, 'after') : undefined;
        const paired = pkBefore !== undefined && pkAfter !== undefined ? { before: pkBefore, after: pkAfter } : undefined;
        const bound = scenario.bound && boundBefore !== undefined && boundAfter !== undefined ? { what: scenario.bound.what, before: boundBefore, after: boundAfter } : undefined;
        const row = { route: scenario.route, ceilingKind: scenario.ceiling, ...measured, ...(paired ? { pairedPk: paired } : {}), ...(bound ? { pairedBound: bound } : {}) };
        rows.push(row);
        byKey.set(scenario.key, row);
      }
    };
    await measureScenarios(buildScenarios(data));
    // The afterId goal: both tenants' pages at the same steady rate, alternating.
    let afterId: AfterIdResult | undefined;
    const bigRow = byKey.get('after-big');
    const smallRow = byKey.get('after-small');
    if (bigRow && smallRow) {
      // Half what the slower row reached closed-loop: a load both carry with room to spare.
      const rate = Math.max(100, Math.round(Math.min(bigRow.result.rps, smallRow.result.rps) / 2 / 50) * 50);
      afterId = await afterIdCompared(service, s, data, rate);
    }
    let burstResult: BurstResult | undefined;
    if (run('burst')) {
      // A quarter of what GET /users/me reached: a load the service carries with room to spare.
      const meRps = byKey.get('me')?.result.rps;
      burstResult = await burst(backend, service, s, data, meRps ? Math.max(100, Math.round(meRps / 4 / 100) * 100) : 500, pair);
    }
    // The value-moving rows, then the webhook and the reads of what they left (issue #30, goal 6).
    let flows: FlowRow[] = [];
    if ([...FLOW_KEYS, ...FLOW_SCENARIO_KEYS].some(run)) {
      log('value-moving paths (closed loop, each ceiling measured right after its row):');
      const caller = { baseUrl: service.baseUrl, tenantId: data.big.tenantId };
      const tokens = await freshAccessTokens(caller, data.flowRefreshTokens);
      const ctx = {
        service, caller, apiKey: data.big.apiKey, tokens, userIds: data.big.sampleIds, databaseUrl: db.url, databaseName: db.name,
        config: loadConfig({ ...baseEnv(s, db), PORT: String(s.servicePort) }), inFlight: s.inFlight, warmupSec: s.warmupSec, durationSec: s.durationSec, log,
        ...(boundServer ? { boundServer: { baseUrl: boundServer.baseUrl, pid: boundServer.pid } } : {}),
      };
      flows = await flowsPhase(ctx, run);
      const readTokens = READ_KEYS.some(run) ? await prepareReads(ctx) : tokens.slice(0, READ_USERS);
      for (const scenario of flowScenarios(data, readTokens)) {
        if (!run(scenario.key)) continue;
        await settleService(ctx);
        await measureScenarios([scenario]);
      }
    }
    return { rows, argon2Around, byKey, burst: burstResult, ...(afterId ? { afterId } : {}), flows, peakRssMb: service.lifetimePeakRss(), errors: service.errors() };
  } finally {
    await service.stop();
  }
}

/** How long each paired PK-SELECT ceiling runs, right before and right after a read row. */
const PAIR_SEC = 5;

/** The ceiling server: one process for the whole run, idle while the service's rows run. */
async function startCeilingServer(s: BenchSettings, db: BenchDatabase, data: ScenarioData, bounds: { siwe: boolean; login: boolean; custody: boolean }): Promise<ServerProcess> {
  log(`ceiling server (node ${s.nodeFlags.join(' ')} dist/bench/ceiling-server.js: same Fastify, logging and pool), kept up for the whole run`);
  return startServer({
    name: 'ceiling server',
    script: here('./ceiling-server.js'),
    env: {
      ...baseEnv(s, db), PORT: String(s.ceilingPort), LOG_LEVEL: s.logLevel, BENCH_TENANT_ID: data.big.tenantId, BENCH_HMAC_SECRET: data.webhook.secret,
      // The SIWE row's bound: its routes and a local chain of their own (only when that row runs).
      ...(bounds.siwe ? { BENCH_SIWE_BOUND: '1' } : {}),
      // The login row's bound: a password pool of its own (only when that row runs).
      ...(bounds.login ? { BENCH_LOGIN_BOUND: '1' } : {}),
      // The custody-a row's bound: its routes and a local chain of their own (only when that row runs).
      ...(bounds.custody ? { BENCH_CUSTODY_BOUND: '1' } : {}),
    },
    port: s.ceilingPort,
    nodeArgs: [...s.nodeFlags, ...cpuProf(s, 'ceiling')],
  });
}

/** The primary-key SELECT of GET /users/me, for the same users as the bearer routes read. */
const pkSpec = (s: BenchSettings, data: ScenarioData) => ({ connections: s.connections, requests: data.big.sampleIds.map((id) => ({ method: 'GET' as const, path: `/pk/${id}`, headers: {} })) });

/**
 * The PK-SELECT ceiling for PAIR_SEC, on the warm ceiling server beside the idle service: each
 * read row is compared with the ceiling measured right before and right after it, since this
 * machine's speed moves by tens of percent within a minute (the ceilings before and after the
 * whole service phase differed by up to 40%).
 */
async function pairedPk(pair: PairedCeiling, when: string): Promise<number> {
  const result = await pair.backend.run(pair.server.baseUrl, { ...pair.spec, durationSec: PAIR_SEC });
  log(`    paired ceiling ${when}: bare + PK SELECT ${result.rps.toFixed(0)}/s`);
  return result.rps;
}

/** A row's own bound (Scenario.bound) for PAIR_SEC on the ceiling server, right before or after the row. */
async function pairedBound(pair: PairedCeiling, bound: NonNullable<Scenario['bound']>, when: string): Promise<number> {
  const result = await pair.backend.run(pair.server.baseUrl, { connections: bound.connections ?? pair.spec.connections, requests: bound.requests, durationSec: PAIR_SEC });
  if (result.failures) throw new Error(`the bound (${bound.what}) failed ${result.failures} requests`);
  log(`    paired bound ${when}: ${bound.what} ${result.rps.toFixed(0)}/s`);
  return result.rps;
}

interface PairedCeiling {
  server: ServerProcess;
  backend: LoadBackend;
  spec: Omit<LoadSpec, 'durationSec'>;
}

/** The bare Fastify route and the same primary-key SELECT, on the ceiling server, with the service stopped (or not yet started). */
async function ceilingPhase(
  s: BenchSettings,
  db: BenchDatabase,
  data: ScenarioData,
  backend: LoadBackend,
  server: ServerProcess,
  when: string,
  withHmac: boolean,
): Promise<{ rows: Row[]; pk: LoadResult; hmac?: LoadResult; hmacWrite?: LoadResult }> {
  log(`ceilings ${when}:`);
  const bareSpec = { connections: s.connections, requests: [{ method: 'GET' as const, path: '/bare', headers: {} }] };
  const bare = await measure(backend, server, s, db, 'bare Fastify route', bareSpec, bareSpec);
  // The same users as the bearer routes read.
  const pk = await measure(backend, server, s, db, 'bare Fastify + PK SELECT', pkSpec(s, data), pkSpec(s, data));
  const rows: Row[] = [
    { route: `ceiling: bare Fastify route (no database), ${when}`, ...bare },
    { route: `ceiling: bare Fastify + the same PK SELECT (same repo, driver and pool), ${when}`, ...pk },
  ];
  // The decision webhook's ceiling: the same signed bodies, only their HMAC checked.
  let hmac: LoadResult | undefined;
  let hmacWrite: LoadResult | undefined;
  if (withHmac) {
    const hmacSpec = { connections: s.connections, requests: webhookRequests(data, '/hmac') };
    const measured = await measure(backend, server, s, db, 'bare Fastify + the HMAC check', hmacSpec, hmacSpec);
    rows.push({ route: `ceiling: bare Fastify route checking the webhook's HMAC (raw body, same secret), ${when}`, ...measured });
    hmac = measured.result;
    // What bounds the row: the same check and the least a decision makes durable.
    const boundSpec = { connections: s.connections, requests: webhookRequests(data, '/hmac-write') };
    const bound = await measure(backend, server, s, db, 'bare Fastify + the HMAC check + the durable minimum', boundSpec, boundSpec);
    rows.push({ route: `bound: the same check and the least a decision makes durable (claim, locked read, change + audit + event in one statement, one transaction), ${when}`, ...bound });
    hmacWrite = bound.result;
  }
  return { rows, pk: pk.result, ...(hmac ? { hmac } : {}), ...(hmacWrite ? { hmacWrite } : {}) };
}

/** Raw argon2id verifications (bench/argon2-ceiling.ts), in this process, logged as measured. */
async function argon2Ceiling(s: BenchSettings, kind: 'pool' | 'plain', when?: string): Promise<Argon2Ceiling> {
  const ceiling = await measureArgon2(kind, s.warmupSec, s.durationSec);
  if (when) ceiling.label += `, ${when}`;
  log(`  ceiling: ${ceiling.label}: ${ceiling.rps.toFixed(1)}/s, CPU/verify ${ceiling.cpuMs.toFixed(2)} ms`);
  return ceiling;
}

const argon2Row = (ceiling: Argon2Ceiling): Row => ({ route: `ceiling: ${ceiling.label}`, result: ceiling, cpu: { serverMs: ceiling.cpuMs } });

async function main(): Promise<void> {
  const s = readSettings();
  const started = Date.now();
  mkdirSync(s.dataDir, { recursive: true });
  const busy = await idleCpuBusy();
  const backend = chooseBackend(s.tool, log);
  const db = await prepareDatabase(s.dataDir, log);
  await startStatementCapture(db.url, join(s.dataDir, 'statements.md'), log);
  clearEarlierRuns(s);
  log(`load generator: ${backend.name}; database: ${db.label}; service LOG_LEVEL=${s.logLevel}`);
  const run = (key: string) => s.only.length === 0 || s.only.includes(key);
  const data = await seed(s, db, run);

  // The ceilings before and after the service's rows, and each read row's own ceiling right
  // before and right after it, on one ceiling server kept up for the whole run (idle while the
  // service's rows run). The read ceilings serve the reads of the flow phase and the webhook's
  // HMAC ceiling too.
  const ceilings = run('ceilings') || READ_KEYS.some(run) || run('webhook');
  const pkRows = buildScenarios(data).some((scenario) => scenario.ceiling === 'pk' && run(scenario.key)) || READ_KEYS.some(run);
  const bounds = { siwe: run('siwe'), login: run('login') || run('burst'), custody: run('custody') && !!db.url };
  const ceilingServer = ceilings || pkRows || bounds.siwe || bounds.login || bounds.custody ? await startCeilingServer(s, db, data, bounds) : undefined;
  let ceilingsBefore: Awaited<ReturnType<typeof ceilingPhase>> | undefined;
  let ceilingsAfter: typeof ceilingsBefore;
  let service: ServicePhase;
  try {
    if (ceilingServer && ceilings) ceilingsBefore = await ceilingPhase(s, db, data, backend, ceilingServer, 'before', run('webhook'));
    else if (ceilingServer && s.warmupSec > 0) await backend.run(ceilingServer.baseUrl, { ...pkSpec(s, data), durationSec: s.warmupSec });
    const pair = ceilingServer && (pkRows || run('login') || run('burst')) ? { server: ceilingServer, backend, spec: pkSpec(s, data) } : undefined;
    service = await servicePhase(s, db, data, backend, run, pair, bounds.siwe || bounds.custody ? ceilingServer : undefined);
    if (ceilingServer && ceilings) ceilingsAfter = await ceilingPhase(s, db, data, backend, ceilingServer, 'after', run('webhook'));
  } finally {
    await ceilingServer?.stop();
  }
  // Event delivery to a local receiver beside a bare POST loop to it (BENCH_EVENTS events).
  const events = run('events')
    ? await eventsPhase(baseEnv(s, db), s.ceilingPort + 1, Number(process.env.BENCH_EVENTS || 40_000), s.durationSec, log, db.name)
    : undefined;
  const ceilingRuns = [ceilingsBefore, ceilingsAfter].filter((c) => c !== undefined);
  const pkRps = ceilingRuns.length ? ceilingRuns.reduce((sum, c) => sum + c.pk.rps, 0) / ceilingRuns.length : undefined;
  const hmacRuns = ceilingRuns.flatMap((c) => (c.hmac ? [c.hmac.rps] : []));
  const hmacRps = hmacRuns.length ? hmacRuns.reduce((sum, v) => sum + v, 0) / hmacRuns.length : undefined;
  const boundRuns = ceilingRuns.flatMap((c) => (c.hmacWrite ? [c.hmacWrite.rps] : []));
  const webhookBoundRps = boundRuns.length ? boundRuns.reduce((sum, v) => sum + v, 0) / boundRuns.length : undefined;
  // Plain libuv verifies beside the pool's, to show what the pool itself costs or gains.
  const plain = run('login') ? await argon2Ceiling(s, 'plain') : undefined;
  const argon2Rps = service.argon2Around.length ? service.argon2Around.reduce((sum, c) => sum + c.rps, 0) / service.argon2Around.length : undefined;
  for (const row of service.byKey.values()) {
    if (row.ceilingKind === 'argon2' && argon2Rps) row.ceiling = { name: 'raw argon2id (mean of before and after)', rps: argon2Rps };
    const pair = row.pairedPk;
    if (row.ceilingKind === 'pk' && pair) {
      const rps = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 0 });
      row.ceiling = { name: `bare + PK SELECT, ${PAIR_SEC} s right before and after the row (${rps(pair.before)} and ${rps(pair.after)}), mean`, rps: (pair.before + pair.after) / 2 };
    }
    else if (row.ceilingKind === 'pk' && pkRps) row.ceiling = { name: 'bare + PK SELECT (mean of before and after)', rps: pkRps };
    if (row.ceilingKind === 'hmac' && hmacRps) row.ceiling = { name: 'bare + HMAC check (mean of before and after)', rps: hmacRps };
  }

  const report = [
    `# Benchmark results`,
    '',
    `Measured ${new Date().toISOString()} on ${machineLine()}; ${db.label}; load by ${backend.name} over loopback, ` +
      `${s.connections} connections unless the route says otherwise, ${s.warmupSec} s warm-up then ${s.durationSec} s per row. ` +
      `Service: \`node ${s.nodeFlags.join(' ')} dist/bench/service-main.js\` (src/main.ts's start-up with the rate-limit thresholds raised), LOG_LEVEL=${s.logLevel}. ` +
      `CPU busy before the run (other work on the machine): ${(busy * 100).toFixed(0)}%.`,
    '',
    table([...service.rows, ...ceilingRuns.flatMap((c) => c.rows), ...service.argon2Around.map(argon2Row), ...(plain ? [argon2Row(plain)] : [])]),
    '',
    service.burst ? burstTable(service.burst) : '',
    '',
    service.afterId ? afterIdTable(service.afterId) : '',
    '',
    events ? eventsTable(events) : '',
    '',
    service.flows.length ? flowTable(service.flows) : '',
    '',
    `Service peak RSS over the whole run (VmHWM): ${service.peakRssMb.toFixed(0)} MiB. Error log lines: ${service.errors.count}.`,
    '',
    '## Targets',
    '',
    targetList(evaluateTargets({ results: service.byKey, burst: service.burst, ...(service.afterId ? { afterId: service.afterId } : {}), peakRss: service.peakRssMb, events, flows: service.flows, peer: readPeerResult(), webhookBoundRps })),
    '',
  ].join('\n');
  writeFileSync(s.resultsFile, report);
  log('');
  log(report);
  if (service.errors.count > 0) log(`last error lines of the service:\n${service.errors.last.join('\n')}`);
  await statements.close();
  log(`bench finished in ${seconds(started)}; written to ${s.resultsFile}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
