import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  /** The path the endpoint URL named (one receiver serves several endpoints). */
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  type: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
  raw: string;
}

/**
 * What a receiver does with a request: `ok` verifies it with the standardwebhooks library
 * (Webhook.verify) under the secret registered for its path and answers 204 (400 when the
 * signature fails); `fail` answers 500; `hang` never answers.
 */
export type ReceiverMode = 'ok' | 'fail' | 'hang';

/** An event endpoint for tests: a real HTTP server on loopback that verifies every delivery. */
export interface Receiver {
  port: number;
  url(path: string): string;
  /** The signing secrets to verify a path's deliveries with (any one may match). */
  secrets: Map<string, string[]>;
  mode: ReceiverMode;
  /** Verified deliveries answered 2xx, in arrival order. */
  accepted: ReceivedEvent[];
  /** Every request, whatever the answer (attempts). */
  attempts: Array<{ path: string; webhookId: string }>;
  /** Requests whose signature did not verify. */
  rejected: Array<{ path: string; error: string }>;
  /** Requests held open in `hang` mode. */
  hanging: number;
  acceptedAt(path: string): ReceivedEvent[];
  /** Stops listening and cuts every connection: the endpoint is down (connection refused). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Cuts held-open requests (the sender sees a reset). */
  cutHanging(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startReceiver(): Promise<Receiver> {
  const held = new Set<ServerResponse>();
  let server: Server;
  const receiver: Receiver = {
    port: 0,
    url: (path) => `http://127.0.0.1:${receiver.port}${path}`,
    secrets: new Map(),
    mode: 'ok',
    accepted: [],
    attempts: [],
    rejected: [],
    get hanging() {
      return held.size;
    },
    acceptedAt: (path) => receiver.accepted.filter((e) => e.path === path),
    async down() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async up() {
      server = make();
      await new Promise<void>((resolve) => server.listen(receiver.port, '127.0.0.1', () => resolve()));
    },
    cutHanging() {
      for (const res of held) res.socket?.destroy();
      held.clear();
    },
    async close() {
      receiver.cutHanging();
      await receiver.down();
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    receiver.attempts.push({ path, webhookId: headers['webhook-id'] });
    if (receiver.mode === 'hang') {
      held.add(res);
      return;
    }
    if (receiver.mode === 'fail') {
      res.writeHead(500).end('receiver failing on purpose');
      return;
    }
    const errors: string[] = [];
    for (const secret of receiver.secrets.get(path) ?? []) {
      try {
        const body = new Webhook(secret).verify(raw, headers) as ReceivedEvent['body'];
        receiver.accepted.push({ path, webhookId: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], type: body.type, body, raw });
        res.writeHead(204).end();
        return;
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
    receiver.rejected.push({ path, error: errors.join('; ') || 'no secret registered' });
    res.writeHead(400).end('signature did not verify');
  };
  const make = () =>
    createServer((req, res) => {
      handle(req, res).catch(() => res.writeHead(500).end());
    });

  server = make();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}
