import type { SearchMode } from "@als/contract";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";
import { reformulateQuery } from "./reformulate-query.ts";

export interface QueryPlan {
  mode: SearchMode;
  queryText: string;
  queryVector?: number[];
  threshold: number;
  /** The model's own floor, from which hybrid fusion rescales similarities (whatever `threshold` the request set). */
  similarityFloor: number;
  /** The model the query vector came from; the vector arm only compares vectors of that model. */
  embeddingModel: string;
}

/**
 * Turns a request's query and search options into what the ranked-search query needs: the query
 * reformulated first when asked, the query embedding only when a vector arm runs (from the
 * embedder's query cache), the model's default threshold when none is given. Both are stages of
 * `timings` (`reformulate`, `embed` with "hit" or "miss").
 */
export async function planQuery(
  deps: Pick<CoreDeps, "embedder" | "llm">,
  request: { query: string; search_mode?: SearchMode | undefined; threshold?: number | undefined; enable_reformulation?: boolean | undefined },
  timings = new RequestTimings(),
): Promise<QueryPlan> {
  const query = request.enable_reformulation ? (await timings.time("reformulate", () => reformulateQuery(deps, request.query))).query : request.query;
  const mode = request.search_mode ?? "hybrid";
  const plan: QueryPlan = {
    mode,
    queryText: query,
    threshold: request.threshold ?? deps.embedder.defaultThreshold,
    similarityFloor: deps.embedder.defaultThreshold,
    embeddingModel: deps.embedder.modelId,
  };
  if (mode !== "fts") {
    const desc = deps.embedder.hasCachedQuery(query) ? "hit" : "miss";
    plan.queryVector = await timings.time("embed", () => deps.embedder.embedQuery(query), desc);
  }
  return plan;
}
