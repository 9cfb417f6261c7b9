// Top self-time functions of a V8 CPU profile (node --cpu-prof; `BENCH_CPU_PROF=1 npm run bench`
// writes one for the service under bench/.data/profiles). Usage:
//   npx tsx bench/cpuprofile-top.ts <file.cpuprofile> [--skip SECONDS] [--until SECONDS] [--rows N] [--callers REGEX] [--depth N]
// --skip leaves out the first seconds (start-up), --until the samples after that second (a
// later row's); --callers prints, for the functions whose
// name or file matches, the call stacks their self time comes from (--depth frames, 6 unless told);
// --own adds the time by the innermost frame of Bastion's own source (src/) on each sample's stack
// (work resumed after an await has only the resuming frames on its stack: much shows as no frame).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where code lives: a package, Bastion's own source, Node's internals, or V8's pseudo-frames. */
function area(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/(src|bench)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]!.split('/').slice(0, -1).join('/') || '.'}` : url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

function main(file: string, options: { skipSec: number; untilSec: number; rows: number; callers?: RegExp; depth: number; own: boolean }): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  let clock = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    clock += dt;
    if (clock < options.skipSec * 1e6 || clock > options.untilSec * 1e6) return;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  const stacks = new Map<string, number>();
  // --own: each sample's time goes to the innermost frame of Bastion's own source on its stack
  // (the code of ours whose work it is, libraries and Node included).
  const owners = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const key = frameName(node);
    if (options.own && node.callFrame.functionName !== '(idle)') {
      let at: number | undefined = id;
      while (at !== undefined && !/\/src\//.test(byId.get(at)!.callFrame.url)) at = parent.get(at);
      const owner = at === undefined ? '(no frame of src/)' : frameName(byId.get(at)!);
      owners.set(owner, (owners.get(owner) ?? 0) + us);
    }
    fns.set(key, (fns.get(key) ?? 0) + us);
    const a = area(node.callFrame.url, node.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + us);
    if (options.callers?.test(key)) {
      const chain: string[] = [];
      for (let p = parent.get(id); p !== undefined && chain.length < options.depth; p = parent.get(p)) chain.push(frameName(byId.get(p)!));
      const stack = `${key}\n      <- ${chain.join('\n      <- ')}`;
      stacks.set(stack, (stacks.get(stack) ?? 0) + us);
    }
  }
  const busy = total - (areas.get('(idle)') ?? 0);
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const top = (m: Map<string, number>, n: number) => [...m].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, n);
  const out: string[] = [`${file}`, `busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled (percentages of busy time)`, '', 'by area:'];
  for (const [k, us] of top(areas, 25)) out.push(`${pct(us)}  ${k}`);
  out.push('', 'by function (self time):');
  for (const [k, us] of top(fns, options.rows)) out.push(`${pct(us)}  ${k}`);
  if (options.own) {
    out.push('', 'by the innermost frame of src/ (self time of everything it called):');
    for (const [k, us] of top(owners, options.rows)) out.push(`${pct(us)}  ${k}`);
  }
  if (options.callers) {
    out.push('', `callers of ${options.callers}:`);
    for (const [k, us] of top(stacks, 12)) out.push(`${pct(us)}  ${k}`);
  }
  process.stdout.write(out.join('\n') + '\n');
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { skip: { type: 'string' }, until: { type: 'string' }, rows: { type: 'string' }, callers: { type: 'string' }, depth: { type: 'string' }, own: { type: 'boolean' } },
});
if (!positionals[0]) {
  process.stderr.write('usage: tsx bench/cpuprofile-top.ts <file.cpuprofile> [--skip SECONDS] [--until SECONDS] [--rows N] [--callers REGEX] [--depth N] [--own]\n');
  process.exit(2);
}
main(positionals[0], {
  skipSec: Number(values.skip ?? 0),
  untilSec: values.until === undefined ? Infinity : Number(values.until),
  rows: Number(values.rows ?? 40),
  callers: values.callers ? new RegExp(values.callers) : undefined,
  depth: Number(values.depth ?? 6),
  own: values.own ?? false,
});
