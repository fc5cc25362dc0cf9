import type { DataSourceProvider, TrafficFilter } from "@als/contract";
import { braintrustFilterPushDown } from "./providers/braintrust-provider.ts";
import type { FilterExecution } from "./providers/trace-provider.ts";

/** Where a stream's filters run (rule 13): trace_provider_a pushes what it can before pagination, the others filter after download. */
export function filterExecutionOf(provider: DataSourceProvider, filters: readonly TrafficFilter[]): FilterExecution {
  return provider === "trace_provider_a" ? braintrustFilterPushDown(filters).execution : "after_download";
}
