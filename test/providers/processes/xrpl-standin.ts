/**
 * The XRPL stand-in alone in a process, as the crash tests need it: keeps its ledger in
 * DATA_DIR/xrpl-standin.json (the service's file) and prints `READY <ws url> <faucet url>`.
 */
import { join } from 'node:path';
import { startStandIn } from '../../../src/sandboxes/xrpl-ledger/server.js';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const server = await startStandIn({ stateFile: join(dataDir, 'xrpl-standin.json'), port: Number(process.env.PORT ?? 0), closeIntervalMs: Number(process.env.CLOSE_INTERVAL_MS ?? 1000) });
process.stdout.write(`READY ${server.url} ${server.faucetUrl}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
