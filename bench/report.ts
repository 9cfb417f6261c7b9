import type { LoadResult } from './load/index.js';

export interface Row {
  route: string;
  result: { rps: number; p50Ms: number; p99Ms: number; failures?: number; exhausted?: boolean; requests?: number };
  /** Peak RSS (MiB) of the process under load during this measurement. */
  rssMb?: number;
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
    '| route | requests/s | p50 ms | p99 ms | peak RSS MiB | ceiling (requests/s) | ratio to ceiling |',
    '|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const row of rows) {
    const r = row.result;
    const ceiling = row.ceiling ? `${row.ceiling.name}: ${n0(row.ceiling.rps)}` : '—';
    const ratio = row.ceiling && row.ceiling.rps > 0 ? `${((r.rps / row.ceiling.rps) * 100).toFixed(0)}%` : '—';
    lines.push(
      `| ${row.route}${flag(r)} | ${n0(r.rps)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${row.rssMb === undefined ? '—' : n0(row.rssMb)} | ${ceiling} | ${ratio} |`,
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
