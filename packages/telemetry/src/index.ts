export { activeTraceId, inSpan, tracingOn } from "./in-span.ts";
export { inRequestSpan } from "./request-span.ts";
// startTracing is "@als/telemetry/start-tracing", loaded only where tracing is configured (the SDK and its exporter).
export type { Tracing } from "./start-tracing.ts";
export { SAMPLER_NAMES, type SamplerName, type TracingSettings } from "./tracing-settings.ts";
