import type { SearchMode } from "@als/contract";
import { type RankedQuery, VectorParam } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { reformulateQuery } from "./reformulate-query.ts";
import type { SearchContext } from "./search-context.ts";

export interface QueryPlan {
  mode: SearchMode;
  queryText: string;
  /**
   * The query embedding when a vector arm runs, still being computed when the plan is made: an arm
   * that needs no vector (the in-process text arm) starts meanwhile.
   */
  queryVector?: Promise<VectorParam>;
  threshold: number;
  /** The model's own floor, from which hybrid fusion rescales similarities (whatever `threshold` the request set). */
  similarityFloor: number;
  /** The model the query vector came from; the vector arm only compares vectors of that model. */
  embeddingModel: string;
}

/** A planned search of `topK` rows whose query embedding may still be running (see QueryPlan). */
export type PlannedSearch = Omit<RankedQuery, "commonLexemes" | "queryVector"> & Pick<QueryPlan, "queryVector">;

/**
 * Turns a request's query and search options into what the ranked-search query needs: the query
 * reformulated first when asked, the query embedding started only when a vector arm runs (with the
 * search's embedder, from its query cache), the model's default threshold when none is given. Both
 * are stages of the search's timings (`reformulate`, `embed` with "hit" or "miss").
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
    plan.queryVector = timings.time("embed", () => embedder.embedQuery(query), desc).then((values) => new VectorParam(values));
    // Its failure is reported by the arm that awaits it; an arm that failed first leaves it unawaited.
    plan.queryVector.catch(() => {});
  }
  return plan;
}

/** The planned search with its query embedding computed, as the ranked-search statements take it. */
export async function withQueryVector(planned: PlannedSearch): Promise<Omit<RankedQuery, "commonLexemes">> {
  const { queryVector, ...rest } = planned;
  return queryVector ? { ...rest, queryVector: await queryVector } : rest;
}
