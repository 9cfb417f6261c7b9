import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (measured: the JSON report of a whole PGlite pass on the 2-core
 * machine, slowest first), started first. Without it a fresh checkout (no vitest cache of
 * durations) ran them last, alone on one fork while the other had nothing left: the pass took
 * 685 s of wall clock for 815 s of file time on 2 forks. The rest keep vitest's own order.
 */
const SLOWEST = [
  'test/e2e/readme-walkthrough.test.ts',
  'test/e2e/value-moves-crash.test.ts',
  'test/providers/xrpl-ledger.contract.test.ts',
  'test/platform/cli-process.test.ts',
  'test/platform/sandbox-schema.test.ts',
  'test/e2e/process-lifecycle.test.ts',
  'test/platform/hostile-input.test.ts',
  'test/platform/process.test.ts',
  'test/platform/pglite-template.test.ts',
  'test/e2e/local-chains.test.ts',
  'test/platform/npm-start.test.ts',
  'test/custody/recovery.test.ts',
  'test/platform/stream-limits.security.test.ts',
  'test/wallets/evm-eoas.process.test.ts',
];

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = SLOWEST.findIndex((slow) => file.moduleId.endsWith(slow));
      return at === -1 ? SLOWEST.length : at;
    };
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}
