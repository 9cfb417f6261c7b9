import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('bastion');

/**
 * An outgoing HTTP call made with node:http (event deliveries, outbound fetches of user-given
 * URLs) as a client span whose `traceparent` goes in `headers`. Calls through fetch are traced
 * by the undici instrumentation; node:http's named imports are not reached by patching under
 * ESM, so these calls say it themselves. Without tracing (no SDK registered) the API is a
 * no-op: no span, no header.
 */
export async function tracedCall<T extends { status: number }>(
  method: string,
  url: URL,
  headers: Record<string, string>,
  call: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(
    `${method}`,
    { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'server.address': url.hostname, 'url.full': `${url.origin}${url.pathname}` } },
    async (span) => {
      const carrier: Record<string, string> = { ...headers };
      propagation.inject(context.active(), carrier);
      try {
        const result = await call(carrier);
        span.setAttribute('http.response.status_code', result.status);
        if (result.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
