import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './platform/log/logger.js';
import { tracingWanted } from './platform/telemetry/settings.js';

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
  // Tracing starts before the service's modules load (they are imported below, not above), so
  // its instrumentations can wrap pg, http and Fastify as they load.
  if (tracingWanted(process.env)) (await import('./platform/telemetry/otel.js')).startTelemetry();
  const { runService } = await import('./server.js');
  await runService(config, createLogger(config.logLevel));
}

main().catch((error: unknown) => {
  process.stderr.write(`Bastion failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
