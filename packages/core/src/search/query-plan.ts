import type { SearchMode } from "@als/contract";
import { VectorParam } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { reformulateQuery } from "./reformulate-query.ts";
import type { SearchContext } from "./search-context.ts";

export interface QueryPlan {
  mode: SearchMode;
  queryText: string;
  queryVector?: VectorParam;
  threshold: number;
  /** The model's own floor, from which hybrid fusion rescales similarities (whatever `threshold` the request set). */
  similarityFloor: number;
  /** The model the query vector came from; the vector arm only compares vectors of that model. */
  embeddingModel: string;
}

/**
 * Turns a request's query and search options into what the ranked-search query needs: the query
 * reformulated first when asked, the query embedding only when a vector arm runs (with the search's
 * embedder, from its query cache), the model's default threshold when none is given. Both are stages
 * of the search's timings (`reformulate`, `embed` with "hit" or "miss").
 */
export async function planQuery(
  deps: Pick<CoreDeps, "llm">,
  search: Pick<SearchContext, "embedder" | "timings">,
  request: { query: string; search_mode?: SearchMode | undefined; threshold?: number | undefined; enable_reformulation?: boolean | undefined },
): Promise<QueryPlan> {
  const { embedder, timings } = search;
  const query = request.enable_reformulation ? (await timings.time("reformulate", () => reformulateQuery(deps, request.query))).query : request.query;
  const mode = request.search_mode ?? "hybrid";
  const plan: QueryPlan = {
    mode,
    queryText: query,
    threshold: request.threshold ?? embedder.defaultThreshold,
    similarityFloor: embedder.defaultThreshold,
    embeddingModel: embedder.modelId,
  };
  if (mode !== "fts") {
    const desc = embedder.hasCachedQuery(query) ? "hit" : "miss";
    plan.queryVector = new VectorParam(await timings.time("embed", () => embedder.embedQuery(query), desc));
  }
  return plan;
}
