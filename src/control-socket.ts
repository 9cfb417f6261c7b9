import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { Logger } from 'pino';
import { commands, UsageError } from './cli-commands.js';
import { controlSocketPath, type ControlAnswer, type ControlRequest } from './control-client.js';
import { ConfigError } from './config.js';
import type { Container } from './container.js';
import { AppError } from './platform/http/errors.js';

/** The service's side of the control socket (control-client.ts: the protocol and the CLI's side). */
const MAX_REQUEST_BYTES = 64 * 1024;

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
