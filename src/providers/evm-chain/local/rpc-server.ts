import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EIP1193RequestFn } from 'viem';
import { LocalListenerError } from '../../local-listener-error.js';

/** A contract deployment fits; a request larger than this is refused (413). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface EvmRpcServer {
  /** http://host:port: what viem's `http()`, ethers, `cast --rpc-url` and a wallet connect to. */
  url: string;
  stop(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/**
 * The local EVM chain's standard Ethereum JSON-RPC over HTTP (POST, single calls and batches),
 * as a development node (anvil, `hardhat node`) serves it: every call goes to `request`, the
 * chain's journaled request function, so what changes the chain is durable before it is answered.
 * CORS is open as on those nodes, so a dapp page and a browser wallet can reach it; the listener
 * is on loopback unless configured otherwise.
 */
export async function startEvmRpcServer(options: { request: EIP1193RequestFn; host: string; port: number }): Promise<EvmRpcServer> {
  const call = async (message: unknown): Promise<Record<string, unknown>> => {
    const req = message as JsonRpcRequest;
    const id = req && typeof req === 'object' && (typeof req.id === 'string' || typeof req.id === 'number') ? req.id : null;
    if (!req || typeof req !== 'object' || Array.isArray(req) || req.jsonrpc !== '2.0' || typeof req.method !== 'string') {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } };
    }
    if (req.params !== undefined && !Array.isArray(req.params) && typeof req.params !== 'object') {
      return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params' } };
    }
    try {
      const result = await options.request({ method: req.method, params: req.params ?? [] } as never);
      return { jsonrpc: '2.0', id, result: result ?? null };
    } catch (error) {
      const e = error as { code?: unknown; message?: string; data?: unknown };
      return {
        jsonrpc: '2.0',
        id,
        error: { code: typeof e.code === 'number' ? e.code : -32603, message: e.message ?? 'Internal error', ...(e.data !== undefined ? { data: e.data } : {}) },
      };
    }
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    const reply = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (req.method === 'OPTIONS') return reply(204);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST, OPTIONS');
      return reply(405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC is served on POST' } });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return reply(413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request too large' } });
      chunks.push(chunk);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    // A valid request without an `id` is a notification: it runs, and is not answered.
    const notification = (message: unknown) => Boolean(message) && typeof message === 'object' && !Array.isArray(message) && !('id' in (message as object)) && (message as JsonRpcRequest).jsonrpc === '2.0' && typeof (message as JsonRpcRequest).method === 'string';
    if (Array.isArray(body)) {
      if (body.length === 0) return reply(200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      // In order: a batch's transactions are applied (and journaled) as listed.
      const answers: unknown[] = [];
      for (const message of body) {
        const answer = await call(message);
        if (!notification(message)) answers.push(answer);
      }
      return answers.length ? reply(200, answers) : reply(204);
    }
    const answer = await call(body);
    return notification(body) ? reply(204) : reply(200, answer);
  };

  const server = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new LocalListenerError('EVM_LOCAL_RPC_PORT', options.host, options.port, error)));
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
