import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { Lists, Options } from './cli-args.js';

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

export const controlSocketPath = (dataDir: string) => join(dataDir, 'bastion.sock');

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
