// The service as `npm run bench` runs it: src/main.ts's start-up (runService) with one change,
// the rate-limit thresholds raised, because all of the bench's load comes from one address
// (127.0.0.1) and would otherwise be refused after 600 requests a minute (30 logins).
// The limiters still count every request, so their cost stays in the figures.
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/log/logger.js';
import { runService } from '../src/server.js';

export const BENCH_RATE_LIMIT = 1_000_000_000;

const config = loadConfig();
runService(config, createLogger(config.logLevel), {
  rateLimit: { globalMax: BENCH_RATE_LIMIT, loginPerIp: BENCH_RATE_LIMIT },
}).catch((error: unknown) => {
  process.stderr.write(`Bastion failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
