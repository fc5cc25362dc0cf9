/** The samplers of OTEL_TRACES_SAMPLER (the SDK's standard names). */
export const SAMPLER_NAMES = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/** Where and how spans are exported (OTEL_* settings); absent settings: no tracing at all. */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  /** Sent with each export (a collector's credentials): never logged. */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; unset: the process's own name. */
  serviceName?: string;
  sampler: SamplerName;
  /** The ratio of the ratio samplers, 0 to 1. */
  samplerRatio: number;
}
