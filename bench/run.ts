// `npm run bench`: seeds a tenant of 1,000,000 users (and one of 10,000), starts the built
// service in its own process, drives each route over loopback, measures the ceilings in the
// same run, and writes bench/results.md. README "Benchmark" says how to read it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { measureArgon2, type Argon2Ceiling } from './argon2-ceiling.js';
import { prepareDatabase, type BenchDatabase } from './database.js';
import { autocannonBackend, chooseBackend, type LoadBackend, type LoadResult, type LoadSpec } from './load/index.js';
import { idleCpuBusy, machineLine } from './machine.js';
import { startServer, type ServerProcess } from './processes.js';
import { burstTable, table, targetList, type BurstResult, type Row, type Target } from './report.js';
import { buildScenarios, loginBurst, type ScenarioData } from './scenarios.js';
import {
  addLoginPassword,
  bulkInsertUsers,
  checkRowCount,
  createBenchTenant,
  LOGIN_PASSWORD,
  mintAccessTokens,
  mintRefreshTokens,
  sampleUserIds,
  type SeededTenant,
} from './seed.js';
import { readSettings, type BenchSettings } from './settings.js';

const log = (line: string) => process.stdout.write(line + '\n');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

/** Environment shared by the seeding container, the service and the ceiling server. */
function baseEnv(s: BenchSettings, db: BenchDatabase): Record<string, string | undefined> {
  return {
    DATABASE_URL: db.url,
    DATA_DIR: s.dataDir,
    MASTER_KEY: process.env.MASTER_KEY,
    REDIS_URL: process.env.REDIS_URL,
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${s.servicePort}`,
  };
}

async function seed(s: BenchSettings, db: BenchDatabase): Promise<ScenarioData> {
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
    const loginEmail = await addLoginPassword(container, big.tenantId);
    // Access tokens last 15 minutes: minted last, just before the service starts.
    const refreshTokens = await mintRefreshTokens(container.database.db, big.tenantId, big.sampleIds, s.refreshTokens);
    const accessTokens = await mintAccessTokens(container, big.tenantId, big.sampleIds);
    log(`seeded in ${seconds(started)} (row_counts checked; ${accessTokens.length} sessions, ${refreshTokens.length} refresh tokens)`);
    return { big, small, loginEmail, loginPassword: LOGIN_PASSWORD, accessTokens, refreshTokens, connections: s.connections };
  } finally {
    await container.close();
  }
}

/** Warm-up, then the measured run; the RSS peak is the process's during the measured run. */
async function measure(
  backend: LoadBackend,
  server: ServerProcess,
  s: BenchSettings,
  label: string,
  warmup: Omit<LoadSpec, 'durationSec'>,
  spec: Omit<LoadSpec, 'durationSec'>,
): Promise<{ result: LoadResult; rssMb: number }> {
  if (s.warmupSec > 0) await backend.run(server.baseUrl, { ...warmup, durationSec: s.warmupSec });
  server.takePeakRss();
  const result = await backend.run(server.baseUrl, { ...spec, durationSec: s.durationSec });
  const rssMb = server.takePeakRss();
  log(`  ${label}: ${result.rps.toFixed(0)}/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, RSS ${rssMb.toFixed(0)} MiB${result.failures ? `, ${result.failures} failed` : ''}`);
  return { result, rssMb };
}

/** GET /users/me paced at `rate`, alone and then while logins saturate the password pool. */
async function burst(backend: LoadBackend, service: ServerProcess, s: BenchSettings, d: ScenarioData, rate: number): Promise<BurstResult> {
  const me: LoadSpec = { ...buildScenarios(d)[0]!.measure, connections: 16, rate, durationSec: s.durationSec };
  await autocannonBackend.run(service.baseUrl, { ...me, durationSec: s.warmupSec || 1 });
  const alone = await autocannonBackend.run(service.baseUrl, me);
  const loginLoad = backend.run(service.baseUrl, { ...loginBurst(d), durationSec: s.durationSec + 2 });
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the pool is full before measuring
  const duringBurst = await autocannonBackend.run(service.baseUrl, me);
  const login = await loginLoad;
  log(`  /users/me p99 alone ${alone.p99Ms.toFixed(2)} ms, during login burst ${duringBurst.p99Ms.toFixed(2)} ms`);
  return { rate, alone, duringBurst, login };
}

async function main(): Promise<void> {
  const s = readSettings();
  const started = Date.now();
  mkdirSync(s.dataDir, { recursive: true });
  const busy = await idleCpuBusy();
  const backend = chooseBackend(s.tool, log);
  const db = await prepareDatabase(s.dataDir, log);
  log(`load generator: ${backend.name}; database: ${db.label}; service LOG_LEVEL=${s.logLevel}`);
  const data = await seed(s, db);
  const run = (key: string) => s.only.length === 0 || s.only.includes(key);

  const rows: Row[] = [];
  const results = new Map<string, Row>();
  log('service (dist/bench/service-main.js):');
  const service = await startServer({
    name: 'service',
    script: here('./service-main.js'),
    env: { ...baseEnv(s, db), PORT: String(s.servicePort), LOG_LEVEL: s.logLevel },
    port: s.servicePort,
    nodeArgs: [...s.nodeFlags, ...(s.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${s.cpuProfDir}`] : [])],
  });
  let burstResult: BurstResult | undefined;
  let servicePeak = 0;
  let serviceErrors: ReturnType<ServerProcess['errors']>;
  try {
    for (const scenario of buildScenarios(data)) {
      if (!run(scenario.key)) continue;
      const { result, rssMb } = await measure(backend, service, s, scenario.route, scenario.warmup, scenario.measure);
      const row: Row = { route: scenario.route, result, rssMb };
      rows.push(row);
      results.set(scenario.key, row);
    }
    if (run('burst')) {
      const meRps = results.get('me')?.result.rps;
      burstResult = await burst(backend, service, s, data, meRps ? Math.max(100, Math.round(meRps / 4 / 100) * 100) : 500);
    }
    servicePeak = service.lifetimePeakRss();
    serviceErrors = service.errors();
  } finally {
    await service.stop();
  }

  log('ceilings (dist/bench/ceiling-server.js, same Fastify, logger and pool):');
  const ceilingServer = await startServer({
    name: 'ceiling server',
    script: here('./ceiling-server.js'),
    env: { ...baseEnv(s, db), PORT: String(s.ceilingPort), LOG_LEVEL: s.logLevel, BENCH_TENANT_ID: data.big.tenantId },
    port: s.ceilingPort,
    nodeArgs: s.nodeFlags,
  });
  const ceilings: Row[] = [];
  let pk: LoadResult | undefined;
  try {
    const bareSpec = { connections: s.connections, requests: [{ method: 'GET' as const, path: '/bare', headers: {} }] };
    const bare = await measure(backend, ceilingServer, s, 'bare Fastify route', bareSpec, bareSpec);
    ceilings.push({ route: 'ceiling: bare Fastify route (no database)', ...bare });
    const pkSpec = { connections: s.connections, requests: data.big.sampleIds.map((id) => ({ method: 'GET' as const, path: `/pk/${id}`, headers: {} })) };
    const pkRun = await measure(backend, ceilingServer, s, 'bare Fastify + PK SELECT', pkSpec, pkSpec);
    pk = pkRun.result;
    ceilings.push({ route: 'ceiling: bare Fastify + the same PK SELECT (drizzle, pg pool)', ...pkRun });
  } finally {
    await ceilingServer.stop();
  }
  let argon2: Argon2Ceiling | undefined;
  if (run('login') || run('burst')) {
    for (const kind of ['pool', 'plain'] as const) {
      const ceiling = await measureArgon2(kind, s.warmupSec, s.durationSec);
      log(`  ${ceiling.label}: ${ceiling.rps.toFixed(1)}/s`);
      ceilings.push({ route: `ceiling: ${ceiling.label}`, result: ceiling });
      if (kind === 'pool') argon2 = ceiling;
    }
  }
  for (const [key, row] of results) {
    if (key === 'login' && argon2) row.ceiling = { name: 'raw argon2id', rps: argon2.rps };
    else if (key !== 'login' && pk) row.ceiling = { name: 'bare + PK SELECT', rps: pk.rps };
  }

  const targets = evaluateTargets(results, burstResult, servicePeak);
  const report = [
    `# Benchmark results`,
    '',
    `Measured ${new Date().toISOString()} on ${machineLine()}; ${db.label}; load by ${backend.name} over loopback, ` +
      `${s.connections} connections unless the route says otherwise, ${s.warmupSec} s warm-up then ${s.durationSec} s per row. ` +
      `Service: \`node ${s.nodeFlags.join(' ')} dist/bench/service-main.js\` (src/main.ts's start-up with the rate-limit thresholds raised), LOG_LEVEL=${s.logLevel}. ` +
      `CPU busy before the run (other work on the machine): ${(busy * 100).toFixed(0)}%.`,
    '',
    table([...rows, ...ceilings]),
    '',
    burstResult ? burstTable(burstResult) : '',
    '',
    `Service peak RSS over the whole run (VmHWM): ${servicePeak.toFixed(0)} MiB. Error log lines: ${serviceErrors!.count}.`,
    '',
    '## Targets',
    '',
    targetList(targets),
    '',
  ].join('\n');
  writeFileSync(s.resultsFile, report);
  log('');
  log(report);
  if (serviceErrors!.count > 0) log(`last error lines of the service:\n${serviceErrors!.last.join('\n')}`);
  log(`bench finished in ${seconds(started)}; written to bench/results.md`);
}

function evaluateTargets(results: Map<string, Row>, b: BurstResult | undefined, peakRss: number): Target[] {
  const targets: Target[] = [];
  const ratio = (key: string) => {
    const row = results.get(key);
    return row?.ceiling ? row.result.rps / row.ceiling.rps : undefined;
  };
  const me = ratio('me');
  if (me !== undefined) targets.push({ what: 'GET /users/me ≥ 70% of the bare route doing the same SELECT', value: `${(me * 100).toFixed(0)}%`, met: me >= 0.7 });
  const login = ratio('login');
  if (login !== undefined) targets.push({ what: 'login ≥ 85% of raw argon2id verifies/s', value: `${(login * 100).toFixed(0)}%`, met: login >= 0.85 });
  const big = results.get('after-big')?.result.p99Ms;
  const small = results.get('after-small')?.result.p99Ms;
  if (big !== undefined && small !== undefined) {
    targets.push({ what: 'afterId p99 at 1M within 1.5× of p99 at 10k', value: `${(big / small).toFixed(2)}×`, met: big <= 1.5 * small });
  }
  targets.push({ what: 'service RSS < 300 MB throughout', value: `${peakRss.toFixed(0)} MiB`, met: peakRss * 1.048576 < 300 });
  if (b) {
    const factor = b.duringBurst.p99Ms / b.alone.p99Ms;
    targets.push({ what: '/users/me p99 during a login burst within 3× of without', value: `${factor.toFixed(2)}×`, met: factor <= 3 });
  }
  return targets;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
