import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, CommonErrors, httpStatusText } from './errors.js';
import { ProviderError, providerErrorAnswer } from '../providers/errors.js';
import type { ErrorCode } from './error-catalogue.js';

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function describeIssue(context: string, issue: AjvIssue): string {
  const path = context + issue.instancePath.replace(/\//g, '.');
  if (issue.keyword === 'required') return `${path}.${String(issue.params.missingProperty)} is required`;
  if (issue.keyword === 'additionalProperties') {
    return `${path}.${String(issue.params.additionalProperty)} is not allowed`;
  }
  return `${path} ${issue.message ?? 'is invalid'}`;
}

/** One message naming every bad field, e.g. "body.email must match format "email"; query.limit must be <= 100". */
export function validationMessage(error: FastifyError): string {
  const context = error.validationContext ?? 'request';
  const issues = (error.validation ?? []) as unknown as AjvIssue[];
  // anyOf/oneOf add a summary issue on top of the specific ones; drop it when others exist.
  const specific = issues.filter((i) => i.keyword !== 'anyOf' && i.keyword !== 'oneOf' && i.keyword !== 'if');
  const messages = (specific.length > 0 ? specific : issues).map((i) => describeIssue(context, i));
  return [...new Set(messages)].join('; ');
}

const FASTIFY_MESSAGES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'BODY_TOO_LARGE', message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'EMPTY_JSON_BODY',
    message: "Body cannot be empty when content-type is set to 'application/json'",
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported content type' },
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The error code answered, for the access log line. */
    errorCode: string | undefined;
  }
}

function send(reply: FastifyReply, statusCode: number, code: ErrorCode, message: string): void {
  reply.request.errorCode = code;
  void reply.status(statusCode).send({ statusCode, error: httpStatusText(statusCode), message, code });
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.decorateRequest('errorCode', undefined);
  app.setErrorHandler((error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    // A provider error has one status per reason (src/platform/providers/errors.ts).
    if (error instanceof ProviderError) {
      if (error.reason !== 'not_found' && error.reason !== 'not_configured') request.log.warn({ err: error, kind: error.kind, provider: error.provider, reason: error.reason }, 'provider call failed');
      error = providerErrorAnswer(error);
    }
    if (error instanceof AppError) {
      if (error.headers) void reply.headers(error.headers);
      send(reply, error.statusCode, error.code, error.message);
      return;
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      send(reply, 400, 'VALIDATION_FAILED', validationMessage(fastifyError));
      return;
    }
    // Syntax errors thrown while parsing a body carry a 400 from Fastify's JSON parser.
    const known = fastifyError.code ? FASTIFY_MESSAGES[fastifyError.code] : undefined;
    const status = fastifyError.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (status === 429) {
        send(reply, 429, 'RATE_LIMITED', 'Too many requests, retry later');
        return;
      }
      // A framework refusal without its own entry keeps its status and answers the catalogue's BAD_REQUEST.
      send(reply, status, known?.code ?? 'BAD_REQUEST', known?.message ?? fastifyError.message);
      return;
    }
    request.log.error({ err: error }, 'request failed');
    send(reply, 500, 'INTERNAL', 'Internal server error');
  });

  app.setNotFoundHandler((request, reply) => {
    const error = CommonErrors.routeNotFound(request.method, request.url);
    send(reply, 404, error.code, error.message);
  });
}
