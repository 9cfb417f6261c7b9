import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * How long a client may take, for the whole server (Fastify's own defaults set none: a client
 * could hold a connection forever). README "Limits" and docs/decisions.md give the reasons.
 */
export interface ServerTimeouts {
  /** From a request's first byte to the end of its headers; then 408 and the connection closes. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (a 20 MiB upload at 1.4 Mbit/s fits); then 408. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (above the 60 s idle time of common load balancers). */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves either way (a request or an answer) for this long is destroyed. */
  connectionTimeoutMs: number;
  /** How often Node checks the headers and request timeouts (its default, 30 s, would add up to that much). */
  checkIntervalMs: number;
}

export const SERVER_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  connectionTimeoutMs: 120_000,
  checkIntervalMs: 5_000,
};

/** The Fastify options that apply the timeouts to its HTTP server. */
export function serverTimeoutOptions(timeouts: ServerTimeouts) {
  return {
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionTimeout: timeouts.connectionTimeoutMs,
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
  };
}

/**
 * After an answer that closes a connection with a body still arriving, the connection keeps
 * reading (and dropping) that body for at most this long before it is destroyed (Apache's
 * lingering close waits as long).
 */
export const LINGER_MS = 2_000;

/**
 * An answer given before the request's body was read to its end (a body over its route's
 * limit, a refusal before the body was parsed) closes the connection: `Connection: close`, and
 * the socket is closed once the answer is flushed. Otherwise Node keeps the connection alive by
 * reading, and dropping, the rest of the body, which a client can make endless.
 */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is false on a real request whose body has not all arrived (it is undefined on
    // the in-process requests of app.inject, which have no connection to close).
    if (request.raw.complete === false) {
      void reply.header('connection', 'close');
      lingerBeforeClosing(request);
    }
    done(null, payload);
  });
}

/**
 * Node closes a `Connection: close` socket with destroySoon(): end, then destroy as soon as the
 * answer is handed to the kernel. With body bytes still unread the kernel then resets the
 * connection, and a client still sending may never read the answer (seen on loopback). So this
 * socket's destroySoon ends its side (the answer, then FIN), keeps reading and dropping what
 * the client still sends, and destroys the socket when the client closes or LINGER_MS passed.
 */
function lingerBeforeClosing(request: FastifyRequest): void {
  const socket = request.raw.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = () => {
    socket.end();
    request.raw.resume();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
