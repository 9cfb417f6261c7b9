import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Two files at a time on the 2-core machines: a file mostly waits on its database and servers.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // A fork keeps its module cache from file to file: importing the app (viem, xrpl, the AWS
    // SDK, ...) once per fork instead of once per file halved the suite (PGlite 1258 s -> 538 s).
    // Tests share no global state beyond what a file already shares between its harnesses.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // The slowest files start first (test/helpers/sequencer.ts): none is left to run alone at the end.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
