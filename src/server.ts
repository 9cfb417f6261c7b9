import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { servedSandboxes, type Config } from './config.js';
import { createContainer, type Container, type ContainerOptions } from './container.js';
import { ensureDemoTenant } from './modules/tenants/demo.js';
import { claimDataDir } from './platform/db/data-dir-lock.js';
import { startControlSocket } from './control-socket.js';
import { serveMetrics } from './platform/metrics/metrics.js';
import { activeTelemetry } from './platform/telemetry/settings.js';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningService {
  app: FastifyInstance;
  container: Container;
}

/**
 * Builds the container and the app, listens, starts the background work, and stops gracefully on
 * SIGTERM/SIGINT. `main.ts` calls it with the configuration alone; the benchmark's entry
 * (bench/service-main.ts) passes container options (raised rate limits) too.
 */
export async function runService(
  config: Config,
  logger: Logger,
  options: Omit<ContainerOptions, 'config' | 'logger'> = {},
): Promise<RunningService> {
  // The embedded database admits one process: refuse to start while another holds DATA_DIR.
  const releaseDataDir = config.databaseUrl ? () => undefined : claimDataDir(config.dataDir, 'service');
  const container = await createContainer({ ...options, config, logger });

  if (!config.databaseUrl) {
    const file = await ensureDemoTenant(container.tenants, config.dataDir);
    if (file) logger.info({ file }, `demo tenant created; its id and API key are in ${file}`);
  }

  const app = await buildApp(container, logger);
  // The operator CLI runs its commands here while the service holds the embedded database;
  // opened before listening, so a service that says it listens also takes CLI commands.
  const closeControl = config.databaseUrl ? async () => undefined : await startControlSocket(config.dataDir, container, logger);
  // The local chains' ports (EVM_LOCAL_RPC_PORT, XRPL_LOCAL_PORT) first: one in use stops the
  // start (main.ts prints the error naming the variable and exits), as a taken PORT does.
  await container.listen();
  await app.listen({ port: config.port, host: config.host });
  const sandboxes = servedSandboxes(config);
  if (sandboxes.length > 0 && config.production) {
    logger.warn({ sandboxes }, 'SANDBOXES=on in production: the built-in provider sandboxes are served, and a user of a tenant left on them can approve their own verification');
  } else if (sandboxes.length > 0) {
    logger.info({ sandboxes }, 'built-in provider sandboxes are served (the default outside production)');
  } else {
    logger.info('no provider sandbox is served');
  }
  container.start();
  // Prometheus on its own listener (METRICS_PORT), never on the API's port.
  let closeMetrics = async () => undefined as void;
  if (config.metrics.port !== undefined) {
    container.platform.metrics.collectProcessMetrics();
    const served = await serveMetrics(container.platform.metrics, { host: config.metrics.host, port: config.metrics.port });
    closeMetrics = () =>
      new Promise<void>((resolve) => {
        served.server.close(() => resolve());
        served.server.closeAllConnections();
      });
    logger.info({ metrics: served.url }, 'Prometheus metrics are served');
  }

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
    // HTTP first: answers from now on close their connections (graceful-close.ts).
    app
      .closeGracefully()
      .then(() => closeControl())
      .then(() => closeMetrics())
      .then(() => container.close())
      .then(() => activeTelemetry()?.shutdown())
      .then(() => {
        releaseDataDir();
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
  return { app, container };
}
