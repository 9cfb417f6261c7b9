import { register } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyPluginCallback } from 'fastify';
import { activeTelemetry, setActiveTelemetry, type ActiveTelemetry } from './settings.js';

/**
 * OpenTelemetry traces (docs/operations.md, "Traces"), started by the entry point before the
 * service's modules are loaded, and only when tracing is wanted (settings.ts). The OTLP/HTTP
 * exporter reads the standard variables (endpoint, headers, timeout); the service name is
 * OTEL_SERVICE_NAME or `bastion`; OTEL_BSP_SCHEDULE_DELAY sets how often spans are sent
 * (default 5000 ms). Spans: each request (@fastify/otel: the route template and its hooks),
 * PostgreSQL queries (pg), and outgoing HTTP and fetch calls (providers, event deliveries,
 * chains), which carry `traceparent`. An incoming `traceparent` is honoured.
 */
export function startTelemetry(env: NodeJS.ProcessEnv = process.env): ActiveTelemetry {
  const running = activeTelemetry();
  if (running) return running;
  // ESM modules (and the CommonJS ones they import, such as pg) are wrapped as they load, so
  // the instrumentations can patch them: this must run before the service's modules load.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'bastion' }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...(Number.isInteger(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}) })],
  });
  trace.setGlobalTracerProvider(provider);
  const fastify = new FastifyOtelInstrumentation({ registerOnInitialization: false });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Incoming requests are Fastify's spans; this traces outgoing http(s) (providers, event deliveries).
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new UndiciInstrumentation(),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      fastify,
    ],
  });
  const telemetry: ActiveTelemetry = {
    fastifyPlugin: () => fastify.plugin() as FastifyPluginCallback,
    shutdown: () => provider.shutdown(),
  };
  setActiveTelemetry(telemetry);
  return telemetry;
}
