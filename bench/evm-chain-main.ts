// A local EVM chain of its own for the custody row's ceiling: the service's engine (EDR) with
// the same settings and the same journaled JSON-RPC server, in a process of its own, so the
// ceiling's transactions (about 8,000 in a run) neither run in the service's process nor stay
// in its memory (EDR keeps every block: ~23 KB of RSS a transaction). Started by
// bench/flows/custody.ts (fork); answers { url, dataDir } over IPC once it listens.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalEvmChain } from '../src/providers/evm-chain/local/edr.js';
import { startEvmRpcServer } from '../src/providers/evm-chain/local/rpc-server.js';

const chainId = Number(process.argv[2]);
const dataDir = mkdtempSync(join(tmpdir(), 'bastion-bench-evm-'));
const chain = await createLocalEvmChain({ chainId, dataDir });
const server = await startEvmRpcServer({ request: chain.localRequest!, host: '127.0.0.1', port: 0 });
process.send!({ url: server.url, dataDir });
process.on('disconnect', () => {
  void server.stop().then(() => chain.close()).finally(() => process.exit(0));
});
