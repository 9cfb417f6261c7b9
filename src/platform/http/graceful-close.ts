import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Stops the server without dropping a request it was sent: see installGracefulClose.
     * Resolves once every answer is written and every connection is closed.
     */
    closeGracefully(): Promise<void>;
  }
}

/**
 * Before the listener closes, the requests already sent are let in: Node accepts about one
 * waiting connection per event-loop turn (and a turn may pass without one), so a burst sent
 * just before the signal is still in the listen queue, where closing the listener resets it
 * (and closing idle connections resets those accepted but not read yet). The loop turns until
 * QUIET_TURNS turns in a row and QUIET_MS bring no new connection and no new request, and every
 * connection accepted meanwhile has sent its first request (or closed); bounded by MAX_SETTLE_MS
 * for a client that keeps opening connections or opens one and sends nothing.
 */
const QUIET_TURNS = 3;
const QUIET_MS = 50;
const MAX_SETTLE_MS = 2_000;

/** While closing, idle connections are closed this often (answers started before the stop). */
const IDLE_SWEEP_MS = 100;

/**
 * Shutdown that answers every request already sent: (1) every answer from now on carries
 * `Connection: close`, so its connection ends with it; (2) the requests already sent are let in
 * (see QUIET_TURNS); (3) then Fastify closes: the listener stops, idle
 * keep-alive connections are closed at once (`forceCloseConnections: 'idle'`), requests still
 * arriving on open connections get 503 with `Connection: close`, and close() resolves when the
 * requests in progress are answered. Without (1) the connections of those answers stayed open for
 * the keep-alive timeout (72 s), past the shutdown grace; without (2) requests sent just before
 * the signal met a reset connection.
 */
export function installGracefulClose(app: FastifyInstance): void {
  let draining = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining && !reply.raw.headersSent) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.decorate('closeGracefully', async function closeGracefully(this: FastifyInstance): Promise<void> {
    draining = true;
    await settle(app);
    // An answer whose headers were written before the stop leaves its connection idle when it ends.
    const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
    }
  });
}

async function settle(app: FastifyInstance): Promise<void> {
  let arrivals = 0;
  // Connections accepted whose first request has not been read yet: to Node they are idle, so
  // closing idle connections would reset them (under load the read can trail the accept by
  // more than QUIET_MS). They are waited for, within MAX_SETTLE_MS.
  const fresh = new Set<Socket>();
  const connected = (socket: Socket) => {
    arrivals++;
    fresh.add(socket);
    socket.once('close', () => fresh.delete(socket));
  };
  const requested = (request: IncomingMessage) => {
    arrivals++;
    fresh.delete(request.socket);
  };
  app.server.on('connection', connected).on('request', requested);
  try {
    const started = Date.now();
    let lastArrival = started;
    for (let quiet = 0, seen = 0; ; ) {
      const now = Date.now();
      if (now - started >= MAX_SETTLE_MS || (fresh.size === 0 && quiet >= QUIET_TURNS && now - lastArrival >= QUIET_MS)) return;
      // Turn by turn while arrivals come; past QUIET_TURNS, wait by timer (no busy loop).
      await (quiet < QUIET_TURNS ? nextTurn() : sleep(10));
      if (arrivals === seen) quiet++;
      else {
        seen = arrivals;
        quiet = 0;
        lastArrival = Date.now();
      }
    }
  } finally {
    app.server.off('connection', connected).off('request', requested);
  }
}
