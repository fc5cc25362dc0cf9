export { activeTraceId, inSpan, tracingOn } from "./in-span.ts";
export { inRequestSpan } from "./request-span.ts";
export { SAMPLER_NAMES, type SamplerName, startTracing, type Tracing, type TracingSettings } from "./start-tracing.ts";
