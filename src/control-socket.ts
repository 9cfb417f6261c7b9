import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { commands, UsageError, type Lists, type Options } from './cli-commands.js';
import { ConfigError } from './config.js';
import type { Container } from './container.js';
import { AppError } from './platform/http/errors.js';

/**
 * With the embedded database only the service may open DATA_DIR, so it runs the operator's CLI
 * commands itself: it listens on `DATA_DIR/bastion.sock` (mode 0600: the operator's user
 * only), the CLI sends one JSON line `{command, options, lists}` and reads one JSON line back,
 * `{ok: true, result}` or `{ok: false, exitCode, error, message}`.
 */
export interface ControlRequest {
  command: string;
  options: Options;
  lists: Lists;
}

export type ControlAnswer = { ok: true; result: unknown } | { ok: false; exitCode: number; error: string; message: string };

const MAX_REQUEST_BYTES = 64 * 1024;

export const controlSocketPath = (dataDir: string) => join(dataDir, 'bastion.sock');

async function answer(container: Container, line: string): Promise<ControlAnswer> {
  let request: ControlRequest;
  try {
    request = JSON.parse(line) as ControlRequest;
  } catch {
    return { ok: false, exitCode: 2, error: 'usage', message: 'malformed control request' };
  }
  const run = commands[request.command];
  if (!run) return { ok: false, exitCode: 2, error: 'usage', message: `unknown command "${String(request.command)}"` };
  try {
    return { ok: true, result: await run(container, request.options ?? {}, { ...request.lists, redirectAllow: request.lists?.redirectAllow ?? [] }) };
  } catch (error) {
    if (error instanceof UsageError) return { ok: false, exitCode: 2, error: 'usage', message: error.message };
    if (error instanceof AppError) return { ok: false, exitCode: 1, error: error.code, message: error.message };
    // A master key that does not open the data keys (keys rotate-master), as the CLI prints it.
    if (error instanceof ConfigError) return { ok: false, exitCode: 1, error: 'config', message: error.message };
    throw error;
  }
}

/** Starts the socket; answers a function that closes it and removes the file. */
export async function startControlSocket(dataDir: string, container: Container, logger: Logger): Promise<() => Promise<void>> {
  const path = controlSocketPath(dataDir);
  rmSync(path, { force: true }); // left by a crash; the DATA_DIR lock says no live service owns it
  const server: Server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_REQUEST_BYTES) socket.destroy();
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      socket.removeAllListeners('data');
      answer(container, buffer.slice(0, end))
        .catch((error: unknown) => {
          logger.error({ err: error }, 'control command failed');
          return { ok: false, exitCode: 1, error: 'internal', message: 'the command failed; see the service log' } as ControlAnswer;
        })
        .then((reply) => socket.end(JSON.stringify(reply) + '\n'));
    });
    socket.on('error', () => socket.destroy());
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
  } catch (error) {
    // E.g. a DATA_DIR path too long for a socket name: the service runs, the CLI is refused.
    logger.warn({ err: error, path }, 'no control socket: CLI commands are refused while the service runs');
    server.close();
    return async () => undefined;
  }
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => {
        rmSync(path, { force: true });
        resolve();
      });
    });
}

/** The CLI's side: sends one command to the running service; undefined when nothing listens. */
export function sendControlRequest(dataDir: string, request: ControlRequest): Promise<ControlAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(controlSocketPath(dataDir));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify(request) + '\n'));
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(text) as ControlAnswer);
      } catch {
        reject(new Error('the service closed the control socket without an answer'));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
  });
}
