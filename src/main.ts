import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createContainer } from './container.js';
import { ensureDemoTenant } from './modules/tenants/demo.js';
import { createLogger } from './platform/log/logger.js';

const SHUTDOWN_GRACE_MS = 10_000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(error.message + '\n');
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const container = await createContainer({ config, logger });

  if (!config.databaseUrl) {
    const file = await ensureDemoTenant(container.tenants, config.dataDir);
    if (file) logger.info({ file }, `demo tenant created; its id and API key are in ${file}`);
  }

  const app = await buildApp(container, logger);
  await app.listen({ port: config.port, host: config.host });
  container.mail.worker.start();

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown grace period elapsed; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    app
      .close()
      .then(() => container.mail.worker.stop())
      .then(() => container.close())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Bastion failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
