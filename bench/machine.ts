import { readFileSync } from 'node:fs';
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
