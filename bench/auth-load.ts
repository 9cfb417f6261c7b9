// Sign-up, login and the login burst on their own, for before/after comparisons of the auth
// paths (issue 30, goals 1, 2 and 4) without the whole `npm run bench`:
//   npm run build && npx tsc -p tsconfig.bench.json && \
//   DATABASE_URL=postgres://.../yourdb node dist/bench/auth-load.js [signup] [login] [burst] [count]
// - count: statements (round trips, BEGIN/COMMIT included) per sign-up and per login, counted
//   on the driver in this process, through the same app (app.inject);
// - signup: AUTH_LOAD_SIGNUPS sign-ups (default 1,500), each with a new address, through the
//   built service in its own process; CPU per request of the service and of the database's
//   PostgreSQL backends (from /proc);
// - login: logins for BENCH_DURATION seconds; CPU per login, and the argon2id pool's own CPU
//   per verification measured in this process just after, so the difference is the non-hash work;
// - burst: GET /users/me at a steady AUTH_LOAD_ME_RATE (default 800/s), in segments alone and
//   during a login burst that alternate (bench/burst.ts, as `npm run bench` does).
// BENCH_CPU_PROF=1 writes a CPU profile of the service into bench/.data/profiles/auth-load.
// The database must be one of your own: the script adds a tenant to it and leaves it there.
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { createLogger } from '../src/platform/log/logger.js';
import { measureArgon2 } from './argon2-ceiling.js';
import { measureBurst } from './burst.js';
import { chooseBackend, type LoadSpec, type RequestSpec } from './load/index.js';
import { postgresCpuMs, processCpuMs } from './machine.js';
import { startServer, type ServerProcess } from './processes.js';
import { addLoginPasswords, bulkInsertUsers, createBenchTenant, LOGIN_PASSWORD, mintAccessTokens, sampleUserIds } from './seed.js';
import { readSettings } from './settings.js';

const log = (line: string) => process.stdout.write(line + '\n');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const json = { 'content-type': 'application/json' };

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must name a database of your own');
const dbName = new URL(url).pathname.slice(1);
const s = readSettings();
const args = process.argv.slice(2);
const phases = args.length ? args : ['count', 'signup', 'login', 'burst'];
const signups = Number(process.env.AUTH_LOAD_SIGNUPS || 1_500);
const port = Number(process.env.BENCH_PORT || 3950);
const env = {
  DATABASE_URL: url,
  DATA_DIR: s.dataDir,
  MASTER_KEY: process.env.MASTER_KEY,
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  // Other services may run on this machine: no fixed port of the local chains.
  EVM_LOCAL_RPC_PORT: 'off',
  XRPL_LOCAL_PORT: '0',
};

interface Seeded {
  tenantId: string;
  loginEmails: string[];
  accessTokens: string[];
}

async function seed(): Promise<Seeded> {
  const container = await createContainer({ config: loadConfig({ ...env, LOG_LEVEL: 'warn', PORT: String(port) }) });
  try {
    const { tenantId } = await createBenchTenant(container, 'auth-load');
    await bulkInsertUsers(container.database.db, tenantId, 5_000, () => undefined);
    const loginEmails = await addLoginPasswords(container, tenantId, 64);
    const ids = await sampleUserIds(container.database.db, tenantId, 5_000, 500);
    const accessTokens = await mintAccessTokens(container, tenantId, ids);
    return { tenantId, loginEmails, accessTokens };
  } finally {
    await container.close();
  }
}

const stamp = `${Date.now().toString(36)}${process.pid}`;
const signupRequest = (tenantId: string, i: number, tag: string): RequestSpec => ({
  method: 'POST',
  path: '/auth/email',
  headers: { 'x-tenant-id': tenantId, ...json },
  body: JSON.stringify({ email: `load-${tag}-${stamp}-${i}@bench.example`, password: LOGIN_PASSWORD, fullName: 'Load User' }),
});
const loginRequests = (d: Seeded): RequestSpec[] =>
  d.loginEmails.map((email) => ({ method: 'POST', path: '/auth/email/login', headers: { 'x-tenant-id': d.tenantId, ...json }, body: JSON.stringify({ email, password: LOGIN_PASSWORD }) }));

/** Statements per request, counted on pg.Client.query in this process (the app over the same database). */
async function countStatements(d: Seeded): Promise<void> {
  const container = await createContainer({ config: loadConfig({ ...env, LOG_LEVEL: 'warn', PORT: String(port) }), rateLimit: { globalMax: 1e9, loginPerIp: 1e9 } });
  const app = await buildApp(container, createLogger('warn'));
  const texts: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...rest: unknown[]) {
    const q = rest[0];
    texts.push(typeof q === 'string' ? q : ((q as { text?: string; name?: string })?.text ?? (q as { name?: string })?.name ?? '?'));
    return (original as (...a: unknown[]) => unknown).apply(this, rest);
  } as typeof original;
  try {
    const send = async (r: RequestSpec) => {
      const res = await app.inject({ method: r.method, url: r.path, headers: r.headers, payload: r.body });
      if (res.statusCode >= 300) throw new Error(`${r.path}: ${res.statusCode} ${res.body}`);
    };
    for (const [label, make] of [
      ['sign-up', (i: number) => signupRequest(d.tenantId, i, 'count')],
      ['login', (i: number) => loginRequests(d)[i % d.loginEmails.length]!],
    ] as const) {
      await send(make(1_000_000)); // warm (prepared statements, key ring)
      texts.length = 0;
      const n = 20;
      for (let i = 0; i < n; i++) await send(make(i));
      log(`  ${label}: ${(texts.length / n).toFixed(1)} statements per request`);
      for (const t of texts.slice(0, texts.length / n)) log(`    ${t.replace(/\s+/g, ' ').slice(0, 150)}`);
    }
  } finally {
    pg.Client.prototype.query = original;
    await app.close();
    await container.close();
  }
}

/** Exactly `count` requests over `connections` keep-alive connections (closed loop): each sign-up address once. */
async function exactly(baseUrl: string, count: number, connections: number, make: (i: number) => RequestSpec) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  let failures = 0;
  const one = (r: RequestSpec) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(`${baseUrl}${r.path}`, { method: r.method, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(r.body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const status = await one(make(next++));
        if (status >= 300) failures++;
      }
    }),
  );
  agent.destroy();
  return { requests: count, failures };
}

async function cpuOf<R extends { requests: number }>(server: ServerProcess, run: () => Promise<R>) {
  const before = { server: processCpuMs(server.pid), db: postgresCpuMs(dbName) };
  const started = Date.now();
  const result = await run();
  const n = Math.max(1, result.requests);
  return {
    result,
    seconds: (Date.now() - started) / 1000,
    serverMs: (processCpuMs(server.pid) - before.server) / n,
    dbMs: (postgresCpuMs(dbName) - before.db) / n,
  };
}

async function main(): Promise<void> {
  mkdirSync(s.dataDir, { recursive: true });
  const backend = chooseBackend(s.tool, log);
  const d = await seed();
  log(`tenant ${d.tenantId} seeded on ${dbName}`);
  if (phases.includes('count')) {
    log('statements per request (driver calls in this process):');
    await countStatements(d);
  }
  const service = await startServer({
    name: 'service',
    script: here('./service-main.js'),
    env: { ...env, PORT: String(port), LOG_LEVEL: s.logLevel },
    port,
    nodeArgs: [...s.nodeFlags, ...(s.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${s.cpuProfDir}/auth-load`] : [])],
  });
  try {
    // One of each first: a setup that answers errors is reported, not measured.
    for (const r of [signupRequest(d.tenantId, 0, 'probe'), loginRequests(d)[0]!]) {
      const res = await fetch(`${service.baseUrl}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
      if (!res.ok) throw new Error(`${r.path} answers ${res.status}: ${await res.text()}`);
    }
    if (phases.includes('signup')) {
      await exactly(service.baseUrl, 200, 16, (i) => signupRequest(d.tenantId, i, 'warm'));
      const m = await cpuOf(service, () => exactly(service.baseUrl, signups, 16, (i) => signupRequest(d.tenantId, i, 'measure')));
      log(
        `sign-up: ${m.result.requests} in ${m.seconds.toFixed(1)} s (${(m.result.requests / m.seconds).toFixed(0)}/s), ` +
          `CPU/request ${m.serverMs.toFixed(2)} ms + PostgreSQL ${m.dbMs.toFixed(3)} ms${m.result.failures ? `, ${m.result.failures} failed` : ''}`,
      );
    }
    if (phases.includes('login')) {
      const spec: LoadSpec = { connections: 16, requests: loginRequests(d), durationSec: s.durationSec };
      await backend.run(service.baseUrl, { ...spec, durationSec: s.warmupSec });
      const m = await cpuOf(service, () => backend.run(service.baseUrl, spec));
      const argon2 = await measureArgon2('pool', 1, Math.min(5, s.durationSec));
      log(
        `login: ${m.result.requests} (${(m.result.requests / m.seconds).toFixed(0)}/s, p99 ${('p99Ms' in m.result ? Number(m.result.p99Ms) : 0).toFixed(1)} ms), CPU/login ${m.serverMs.toFixed(2)} ms + PostgreSQL ${m.dbMs.toFixed(3)} ms; ` +
          `argon2id pool alone ${argon2.rps.toFixed(0)}/s, CPU/verify ${argon2.cpuMs.toFixed(2)} ms; non-hash CPU/login ≈ ${(m.serverMs - argon2.cpuMs).toFixed(2)} ms, ` +
          `login/ceiling ${((100 * m.result.requests) / m.seconds / argon2.rps).toFixed(0)}%`,
      );
    }
    if (phases.includes('burst')) {
      const rate = Number(process.env.AUTH_LOAD_ME_RATE || 800);
      const me = {
        connections: 16,
        rate,
        durationSec: s.durationSec,
        requests: d.accessTokens.map((token): RequestSpec => ({ method: 'GET', path: '/users/me', headers: { 'x-tenant-id': d.tenantId, authorization: `Bearer ${token}` } })),
      };
      const { alone, duringBurst: during, login, rounds, medianRatio } = await measureBurst(service.baseUrl, backend, me, { connections: 32, requests: loginRequests(d) }, { warmupSec: s.warmupSec, log });
      log(
        `burst: /users/me at ${rate}/s p99 alone ${alone.p99Ms.toFixed(1)} ms, during ${login.rps.toFixed(0)} logins/s ${during.p99Ms.toFixed(1)} ms ` +
          `(${(during.p99Ms / Math.max(alone.p99Ms, 0.001)).toFixed(2)}x pooled, the median of the rounds' ratios ${medianRatio.toFixed(2)}x; p50 ${alone.p50Ms.toFixed(1)} / ${during.p50Ms.toFixed(1)} ms; ${rounds} rounds)`,
      );
    }
  } finally {
    await service.stop();
  }
  const errors = service.errors();
  if (errors.count) log(`service error lines: ${errors.count}\n${errors.last.join('\n')}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`auth-load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
