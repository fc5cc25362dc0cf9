import type { DataSourceProvider, TrafficFilter } from "@als/contract";
import type { FilterExecution } from "@als/sources";
import { braintrustFilterPushDown, langfuseFilterPushDown } from "@als/sources";

/**
 * Where a stream's filters run (rule 13): trace_provider_a pushes what BTQL can say before
 * pagination; trace_provider_b what Langfuse's v2 filter can say, unless the deployment is read
 * through its legacy endpoints (`legacyEndpoint`), which filter nothing; trace_provider_c filters
 * after download. Every page is checked locally too.
 */
export function filterExecutionOf(provider: DataSourceProvider, filters: readonly TrafficFilter[], legacyEndpoint = false): FilterExecution {
  if (provider === "trace_provider_a") return braintrustFilterPushDown(filters).execution;
  if (provider === "trace_provider_b" && !legacyEndpoint) return langfuseFilterPushDown(filters).execution;
  return "after_download";
}
