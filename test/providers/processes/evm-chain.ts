/**
 * The local EVM chain alone in a process, as the crash tests need it: the service's own chain
 * (createEvmChain with DATA_DIR), its JSON-RPC served over HTTP on loopback through the same
 * transport the service uses; prints `READY <url>` and, after a reset, `RESET <json>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../src/config.js';
import { createEvmChain } from '../../../src/providers/evm-chain/select.js';

const chain = await createEvmChain(loadConfig({ DATA_DIR: process.env.DATA_DIR ?? '' }), {
  onLocalReset: (reset) => process.stdout.write(`RESET ${JSON.stringify(reset)}\n`),
});
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d.toString()));
  req.on('end', () => {
    const { id, method, params } = JSON.parse(body) as { id: number; method: string; params?: unknown[] };
    const reply = (payload: object) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, ...payload }));
    };
    chain.publicClient
      .request({ method, params } as never)
      .then((result) => reply({ result }))
      .catch((error: { code?: number; message: string }) => reply({ error: { code: error.code ?? -32603, message: error.message } }));
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => void chain.close().then(() => process.exit(0)));
