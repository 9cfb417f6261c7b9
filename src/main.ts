import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './platform/log/logger.js';
import { runService } from './server.js';

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
  await runService(config, createLogger(config.logLevel));
}

main().catch((error: unknown) => {
  process.stderr.write(`Bastion failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
