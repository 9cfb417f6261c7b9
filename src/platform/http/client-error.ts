import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusText } from './errors.js';
import type { ErrorCode } from './error-catalogue.js';

/** What Node's HTTP parser refused, in the service's error shape. */
function answerFor(code: string | undefined): { statusCode: number; code: ErrorCode; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { statusCode: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { statusCode: 431, code: 'HEADERS_TOO_LARGE', message: 'The request line and headers are too large' };
    case 'HPE_INVALID_METHOD':
      return { statusCode: 400, code: 'MALFORMED_REQUEST', message: 'Unknown HTTP method' };
    default:
      return { statusCode: 400, code: 'MALFORMED_REQUEST', message: 'The request is not valid HTTP' };
  }
}

/**
 * Fastify's clientErrorHandler: requests Node's HTTP parser refuses (a malformed header line,
 * headers over the size limit, a timeout) are answered with `{statusCode, error, message, code}`
 * like every other answer, then the connection is closed.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = answerFor(error.code);
  this.log.debug({ parserCode: error.code, statusCode: answer.statusCode }, 'client error');
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const body = JSON.stringify({ statusCode: answer.statusCode, error: httpStatusText(answer.statusCode), message: answer.message, code: answer.code });
  // end() flushes the answer, then closes; the parser cannot continue on this connection. A
  // client that never reads it does not keep the socket: it is destroyed after 5 seconds.
  socket.setTimeout(5000, () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${answer.statusCode} ${httpStatusText(answer.statusCode)}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const FRAMEWORK_ANSWERS: Record<string, { statusCode: number; code: ErrorCode; message: string }> = {
  FST_ERR_BAD_URL: { statusCode: 400, code: 'MALFORMED_URL', message: 'The URL holds a malformed percent-encoding' },
  FST_ERR_MAX_PARAM_LENGTH: { statusCode: 414, code: 'URL_TOO_LONG', message: 'A path segment of the URL is too long' },
};

/** Fastify's frameworkErrors: errors the router raises before any route runs, in the error shape. */
export function frameworkErrors(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply): void {
  const answer = FRAMEWORK_ANSWERS[error.code ?? ''] ?? { statusCode: 400, code: 'BAD_REQUEST', message: 'Bad request' };
  void reply
    .status(answer.statusCode)
    .send({ statusCode: answer.statusCode, error: httpStatusText(answer.statusCode), message: answer.message, code: answer.code });
}
