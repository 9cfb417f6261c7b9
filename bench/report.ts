import type { LoadResult } from './load/index.js';

export interface Row {
  route: string;
  result: { rps: number; p50Ms: number; p99Ms: number; failures?: number; exhausted?: boolean; requests?: number };
  /** Peak RSS (MiB) of the process under load during this measurement. */
  rssMb?: number;
  /** CPU per request (ms): the server process (all threads), and the PostgreSQL backends of the database. */
  cpu?: { serverMs: number; dbMs?: number };
  ceiling?: { name: string; rps: number };
}

export interface BurstResult {
  rate: number;
  alone: LoadResult;
  duringBurst: LoadResult;
  login: LoadResult;
}

export interface Target {
  what: string;
  value: string;
  met: boolean;
}

const n0 = (v: number) => Math.round(v).toLocaleString('en');
const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));

function flag(r: Row['result']): string {
  const notes: string[] = [];
  if (r.failures) notes.push(`${n0(r.failures)} failed`);
  if (r.exhausted) notes.push('tokens exhausted: invalid');
  return notes.length ? ` (${notes.join(', ')})` : '';
}

export function table(rows: Row[]): string {
  const lines = [
    '| route | requests/s | p50 ms | p99 ms | peak RSS MiB | CPU ms/request: process + PostgreSQL | ceiling (requests/s) | ratio to ceiling |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const row of rows) {
    const r = row.result;
    const ceiling = row.ceiling ? `${row.ceiling.name}: ${n0(row.ceiling.rps)}` : '—';
    const ratio = row.ceiling && row.ceiling.rps > 0 ? `${((r.rps / row.ceiling.rps) * 100).toFixed(0)}%` : '—';
    const cpu = row.cpu ? `${row.cpu.serverMs.toFixed(2)}${row.cpu.dbMs === undefined ? '' : ` + ${row.cpu.dbMs.toFixed(2)}`}` : '—';
    lines.push(
      `| ${row.route}${flag(r)} | ${n0(r.rps)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${row.rssMb === undefined ? '—' : n0(row.rssMb)} | ${cpu} | ${ceiling} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

export function burstTable(b: BurstResult): string {
  return [
    `| GET /users/me at ${n0(b.rate)} requests/s (paced, autocannon) | requests/s | p50 ms | p99 ms |`,
    '|---|---:|---:|---:|',
    `| alone${flag(b.alone)} | ${n0(b.alone.rps)} | ${ms(b.alone.p50Ms)} | ${ms(b.alone.p99Ms)} |`,
    `| during a login burst (${n0(b.login.rps)} logins/s)${flag(b.duringBurst)} | ${n0(b.duringBurst.rps)} | ${ms(b.duringBurst.p50Ms)} | ${ms(b.duringBurst.p99Ms)} |`,
  ].join('\n');
}

export function targetList(targets: Target[]): string {
  return targets.map((t) => `- ${t.met ? 'met' : '**not met**'}: ${t.what}: ${t.value}`).join('\n');
}

/** The targets of issue #6, from the rows of the service, the burst measurement and the peak RSS. */
export function evaluateTargets(results: Map<string, Row>, b: BurstResult | undefined, peakRss: number): Target[] {
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
