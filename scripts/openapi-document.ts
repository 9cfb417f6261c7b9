/**
 * Prints the service's OpenAPI document (what GET /openapi.json serves) without a server: the
 * app is built on an in-memory embedded database with the default settings (sandboxes on), and
 * `app.swagger()` is written to stdout, or to the file named by the first argument.
 *
 *   npx tsx scripts/openapi-document.ts openapi.json
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { openDatabase } from '../src/platform/db/client.js';
import { createLogger } from '../src/platform/log/logger.js';

const dataDir = mkdtempSync(join(tmpdir(), 'bastion-openapi-'));
try {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', MASTER_KEY: '00'.repeat(32), EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0' });
  const logger = createLogger('error');
  const database = await openDatabase({});
  const container = await createContainer({ config, database, logger });
  const app = await buildApp(container, logger);
  await app.ready();
  const text = JSON.stringify(app.swagger(), null, 2) + '\n';
  await app.close();
  await container.close();
  if (process.argv[2]) {
    mkdirSync(dirname(process.argv[2]), { recursive: true });
    writeFileSync(process.argv[2], text);
  }
  else process.stdout.write(text);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
