// The trace providers' adapters (one per provider behind TraceProvider) and the mapping engine
// (pure functions from a provider's records to interactions). No storage, no HTTP of our own.
export * from "./mapping/apply-mapping.ts";
export * from "./mapping/field-inventory.ts";
export { resolvePointer } from "./mapping/json-pointer.ts";
export { maskExample } from "./mapping/mask-example.ts";
export * from "./mapping/text-transforms.ts";
export { upgradeTextPaths } from "./mapping/upgrade-text-paths.ts";
export { BRAINTRUST_SPAN_LIMIT, braintrustFilterPushDown } from "./providers/braintrust-provider.ts";
export * from "./providers/create-trace-provider.ts";
export { langfuseFilterPushDown, MAX_OBSERVATION_PAGES, OBSERVATION_PAGE } from "./providers/langfuse-provider.ts";
export { MAX_SPAN_PAGES, SPAN_PAGE } from "./providers/langsmith-provider.ts";
export * from "./providers/provider-hosts.ts";
export { PROVIDER_MAX_RETRY_WAIT_SECONDS, PROVIDER_READ_ATTEMPTS } from "./providers/provider-request.ts";
export * from "./providers/trace-provider.ts";
export * from "./providers/trace-provider-error.ts";
export * from "./spans/read-supporting-spans.ts";
export * from "./spans/supporting-spans.ts";
