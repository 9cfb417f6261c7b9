import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

function cpuTimes(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Share of the machine's CPU busy over `ms` while the bench itself does nothing: other work. */
export async function idleCpuBusy(ms = 1_000): Promise<number> {
  const a = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const b = cpuTimes();
  return b.total === a.total ? 0 : (b.busy - a.busy) / (b.total - a.total);
}

export function machineLine(): string {
  const list = cpus();
  return `${list.length} cores (${list[0]?.model.trim() ?? 'unknown'}), Node ${process.version}`;
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time (user + system, all threads) a process has used, in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The last CPU reading of every backend seen, by database: a backend that exits keeps its last. */
const seenBackends = new Map<string, Map<number, number>>();

/**
 * CPU time used so far by the PostgreSQL backends connected to `database` (ms). A backend that
 * has exited since an earlier call (the service's pool closes idle connections) counts with the
 * CPU it had at its last reading, so the total never goes down: a difference of two calls may
 * miss what a backend used after its last reading, but is never negative.
 */
export function postgresCpuMs(database: string): number {
  let seen = seenBackends.get(database);
  if (!seen) seenBackends.set(database, (seen = new Map()));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres: ') && cmdline.split(' ').includes(database)) {
        // A pid used again by a later backend counts from where the earlier one stopped (an undercount, rare: pids cycle through pid_max).
        const pid = Number(entry);
        seen.set(pid, Math.max(seen.get(pid) ?? 0, processCpuMs(pid)));
      }
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const ms of seen.values()) total += ms;
  return total;
}
