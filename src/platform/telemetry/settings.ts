import type { FastifyPluginCallback } from 'fastify';

/**
 * Whether OpenTelemetry tracing is on: only when an OTLP endpoint is named by the standard
 * variables (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and neither
 * OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none. Kept apart from otel.ts: the entry point
 * and the app decide without loading the SDK.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** What the running telemetry gives the app: the Fastify plugin that traces each request. */
export interface ActiveTelemetry {
  fastifyPlugin(): FastifyPluginCallback;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

let active: ActiveTelemetry | undefined;

/** The telemetry the entry point started (otel.ts), if any. */
export function activeTelemetry(): ActiveTelemetry | undefined {
  return active;
}

export function setActiveTelemetry(telemetry: ActiveTelemetry): void {
  active = telemetry;
}
