import type { Embedder } from "@als/ai";
import { AppError, type EntityType, type ExperimentArm, type UnifiedSearchRequest } from "@als/contract";
import {
  type AgentPlaybookRecord,
  type ProfileRecord,
  type Scope,
  type ServedItem,
  StorageUnavailableError,
  searchSessions,
  type UserPlaybookRecord,
} from "@als/db";
import type { TextArm, VectorIndex } from "@als/vector";
import { rejectAtDeadline } from "../concurrency/deadline.ts";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { searchAgentPlaybooks, searchUserPlaybooks } from "../playbooks/search-playbooks.ts";
import { searchProfiles } from "../profiles/search-profiles.ts";
import { RequestTimings } from "../request-timings.ts";
import { SEARCH_DEADLINE_MS } from "../settings.ts";
import { assignExperimentArm } from "./experiment-assignment.ts";
import { issueExposureReceipt } from "./exposure-receipts.ts";
import { reformulateQuery } from "./reformulate-query.ts";
import { admitSearch } from "./search-admission.ts";
import type { SearchContext } from "./search-context.ts";

/** What was left out of a search that still answered: a component and why. */
export interface Degradation {
  component: EntityType | "reformulation";
  reason: string;
}

export interface UnifiedSearchResult {
  profiles: ProfileRecord[];
  userPlaybooks: { record: UserPlaybookRecord; exposureReceipt: string }[];
  agentPlaybooks: AgentPlaybookRecord[];
  reformulatedQuery: string | null;
  degradations: Degradation[];
  experiment: { experiment_id: string; arm: ExperimentArm } | null;
}

/**
 * Searches profiles, user playbooks and agent playbooks at once, within the search deadline (504
 * with reason search_deadline and no partial results when it passes; settings can lift it). Its
 * stages go to `timings`: admission, config, reformulate, dedup.read, embed, each entity's search,
 * dedup.claim, receipts.
 */
export async function unifiedSearch(
  deps: CoreDeps,
  scope: Scope,
  request: UnifiedSearchRequest,
  correlationId: string,
  timings = new RequestTimings(),
): Promise<UnifiedSearchResult> {
  const deadlineMs = deps.search?.deadlineMs === undefined ? SEARCH_DEADLINE_MS : deps.search.deadlineMs;
  if (deadlineMs === null) return admitSearch(deps, (search) => searchAll(deps, search, scope, request, () => {}), { timings });
  const startedAt = performance.now();
  const timeout = () => new AppError("search_deadline", "Request timeout", { reason: "search_deadline", correlation_id: correlationId });
  // The deadline stops the search's remaining work too: no statement, embedding or arm starts after it.
  const expiry = new AbortController();
  // Checked again before the session's served state changes: a search past its deadline leaves none.
  const checkDeadline = () => {
    if (expiry.signal.aborted || performance.now() - startedAt >= deadlineMs) throw timeout();
  };
  const searching = admitSearch(deps, (search) => searchAll(deps, search, scope, request, checkDeadline), {
    deadlineMs,
    startedAt,
    signal: expiry.signal,
    timings,
  });
  return rejectAtDeadline(searching, startedAt + deadlineMs, timeout, expiry);
}

async function searchAll(
  deps: CoreDeps,
  search: SearchContext,
  scope: Scope,
  request: UnifiedSearchRequest,
  checkDeadline: () => void,
): Promise<UnifiedSearchResult> {
  const { timings } = search;
  const experiment = await timings.time("config", () => experimentArmOf(deps, scope, request.user_id));
  const degradations: Degradation[] = [];
  const resolved = request.enable_reformulation
    ? await timings.time("reformulate", () => reformulateQuery(deps, request.query, request.conversation_history))
    : undefined;
  if (resolved?.degradation) degradations.push({ component: "reformulation", reason: resolved.degradation });
  const nothing = { profiles: [], userPlaybooks: [], agentPlaybooks: [], reformulatedQuery: resolved?.reformulated ?? null, degradations, experiment };
  // The holdout arm is served no learnings: that is what the experiment measures.
  if (experiment?.arm === "holdout") return nothing;

  const wanted = new Set(request.entity_types);
  const sessionId = request.session_id || undefined;
  const served = sessionId ? await timings.time("dedup.read", () => searchSessions.findServed(search.db, scope, sessionId)) : new Set<string>();
  const notServed = (item: ServedItem) => !served.has(searchSessions.servedKey(item));
  // Asks for enough that top_k remain once what the session was served already is dropped.
  const depth = (kind: ServedItem["kind"]) => request.top_k + [...served].filter((key) => key.startsWith(`${kind}:`)).length;

  // The three entity searches share one query embedding and one read of what the index must catch up on.
  const embedder = embeddingOnce(search.embedder, search.signal);
  // The embedding is most of a search: it starts before the index's catch-up and the query's
  // lexemes, whose statements (PGlite) would otherwise run on this thread before it is sent.
  const queryText = (resolved?.query ?? request.query).trim();
  const searchesSome = wanted.has("agent_playbooks") || wanted.has("user_playbooks") || (wanted.has("profiles") && request.user_id);
  checkDeadline();
  if (searchesSome && request.search_mode !== "fts" && queryText !== "") embedder.embedQuery(queryText).catch(() => {});
  const shared: SearchContext = {
    ...search,
    embedder,
    // A full-text search needs the index only where it holds the text arm too.
    vectorIndex:
      search.vectorIndex && (request.search_mode !== "fts" || search.vectorIndex.text)
        ? searchingAsOfNow(search.vectorIndex, resolved?.query ?? request.query, timings)
        : undefined,
  };
  const common = {
    query: resolved?.query ?? request.query,
    threshold: request.threshold,
    enable_reformulation: false,
    search_mode: request.search_mode,
    tags: request.tags,
    source: request.source ?? undefined,
  };
  const playbookCommon = { ...common, agent_version: request.agent_version, playbook_name: request.playbook_name };
  // The three wait for one query embedding and go on in the order they began. Agent playbooks
  // start first: their project-wide graph walk then runs in the index's graph thread while this
  // thread compares one user's points and reads the rows of the other two kinds (embedded 10k,
  // c=1: 0.4 ms sooner than last). Profiles belong to one user: without user_id there is nobody
  // whose profiles to search.
  const agentPlaybooksFound = wanted.has("agent_playbooks")
    ? searchAgentPlaybooks(
        deps,
        scope,
        { ...playbookCommon, playbook_status_filter: request.agent_playbook_status_filter, top_k: depth("agent_playbook") },
        shared,
      )
    : [];
  const profilesFound =
    wanted.has("profiles") && request.user_id ? searchProfiles(deps, scope, { ...common, user_id: request.user_id, top_k: depth("profile") }, shared) : [];
  const userPlaybooksFound = wanted.has("user_playbooks")
    ? searchUserPlaybooks(deps, scope, { ...playbookCommon, user_id: request.user_id, top_k: depth("user_playbook") }, shared)
    : [];
  const settled = await Promise.allSettled([profilesFound, userPlaybooksFound, agentPlaybooksFound]);
  const searched = settled.filter((_, index) => wanted.has(ENTITY_ORDER[index]!)).length;
  const [foundProfiles, foundUserPlaybooks, foundAgentPlaybooks] = usableResults(settled, searched, degradations);

  let profiles = foundProfiles.filter((p) => notServed({ kind: "profile", id: p.profile_id })).slice(0, request.top_k);
  let agentPlaybooks = foundAgentPlaybooks.filter((p) => notServed({ kind: "agent_playbook", id: String(p.agent_playbook_id) })).slice(0, request.top_k);
  // A returned agent playbook already represents the user playbooks it was made from; they are
  // left out and not replaced, so fewer than top_k user playbooks may come back.
  const represented = new Set(agentPlaybooks.flatMap((p) => p.source_user_playbook_ids));
  let userPlaybooks = foundUserPlaybooks
    .filter((p) => notServed({ kind: "user_playbook", id: String(p.user_playbook_id) }))
    .slice(0, request.top_k)
    .filter((p) => !represented.has(p.user_playbook_id));

  checkDeadline();
  if (sessionId) {
    const items = [
      ...profiles.map((p): ServedItem => ({ kind: "profile", id: p.profile_id })),
      ...userPlaybooks.map((p): ServedItem => ({ kind: "user_playbook", id: String(p.user_playbook_id) })),
      ...agentPlaybooks.map((p): ServedItem => ({ kind: "agent_playbook", id: String(p.agent_playbook_id) })),
    ];
    const claimed = await timings.time("dedup.claim", () =>
      searchSessions.claimServed(search.db, scope, { sessionId, interactionId: request.interaction_id, servedAt: deps.now(), items }),
    );
    // A concurrent search of the session claimed these first and serves them.
    const mine = (item: ServedItem) => claimed.has(searchSessions.servedKey(item));
    profiles = profiles.filter((p) => mine({ kind: "profile", id: p.profile_id }));
    userPlaybooks = userPlaybooks.filter((p) => mine({ kind: "user_playbook", id: String(p.user_playbook_id) }));
    agentPlaybooks = agentPlaybooks.filter((p) => mine({ kind: "agent_playbook", id: String(p.agent_playbook_id) }));
  }
  const receipts = await timings.time("receipts", () =>
    Promise.all(userPlaybooks.map((p) => issueExposureReceipt(deps, scope, { session_id: sessionId, user_playbook_id: p.user_playbook_id }))),
  );
  return {
    ...nothing,
    profiles,
    userPlaybooks: userPlaybooks.map((record, index) => ({ record, exposureReceipt: receipts[index]! })),
    agentPlaybooks,
  };
}

const ENTITY_ORDER: EntityType[] = ["profiles", "user_playbooks", "agent_playbooks"];

/**
 * The entity searches that answered, with those that failed left empty and named in the
 * degradations: partial results are still usable. Storage that is gone, a refused request, or
 * every searched entity type failing is an error, never an empty success.
 */
function usableResults<T extends readonly PromiseSettledResult<unknown>[]>(
  settled: T,
  searched: number,
  degradations: Degradation[],
): { [K in keyof T]: T[K] extends PromiseSettledResult<infer V> ? V : never } {
  const failures = settled.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
  const fatal = failures.find((error) => error instanceof StorageUnavailableError || error instanceof AppError);
  if (fatal || (failures.length > 0 && failures.length === searched)) throw fatal ?? failures[0];
  return settled.map((result, index) => {
    if (result.status === "fulfilled") return result.value;
    degradations.push({ component: ENTITY_ORDER[index]!, reason: "search_failed" });
    return [];
  }) as never;
}

/**
 * The caller's arm in the project's active retrieval experiment, or null when none runs. While one
 * runs, searches must say whose they are (user_id), since the arm decides what they are served.
 */
async function experimentArmOf(deps: CoreDeps, scope: Scope, userId: string | undefined) {
  const experiment = (await getProjectConfig(deps, scope)).retrieval_experiment;
  if (!experiment) return null;
  if (!userId) {
    throw AppError.validation([
      { loc: ["body", "user_id"], msg: `required while retrieval experiment '${experiment.experiment_id}' is active`, type: "missing" },
    ]);
  }
  return { experiment_id: experiment.experiment_id, arm: assignExperimentArm(experiment.experiment_id, userId, experiment.arm_split) };
}

/**
 * The embedder, embedding each query text at most once however many searches ask for it; a text it
 * has embedded counts as cached as the process's cache had it when first asked, so the searches that
 * share that embedding report it as the request saw it (a miss stays a miss). Once
 * `signal` is aborted, no embedding starts and waiting ones reject with its reason (their tasks not
 * yet running in the pool are dropped).
 */
function embeddingOnce(embedder: Embedder, signal?: AbortSignal): Embedder {
  const vectors = new Map<string, Promise<number[]>>();
  const cachedAtFirst = new Map<string, boolean>();
  return {
    modelId: embedder.modelId,
    dimensions: embedder.dimensions,
    defaultThreshold: embedder.defaultThreshold,
    calibration: embedder.calibration,
    embedDocuments: (texts) => embedder.embedDocuments(texts, signal && { signal }),
    embedQuery(text) {
      let vector = vectors.get(text);
      if (!vector) {
        cachedAtFirst.set(text, embedder.hasCachedQuery(text));
        vector = signal ? abortable(embedder.embedQuery(text, { signal }), signal) : embedder.embedQuery(text);
        vectors.set(text, vector);
      }
      return vector;
    },
    hasCachedQuery: (text) => cachedAtFirst.get(text) ?? embedder.hasCachedQuery(text),
    close: () => embedder.close(),
  };
}

/**
 * The vector index for one request's searches. One that follows the record on its own starts
 * reading what changed now, while the query embeds, instead of after the embedding in each kind's
 * search (timed as `vector.catch_up`); the request's searches all wait for that one read. It makes
 * the query's lexemes for its text arm now as well, once for the three kinds.
 */
function searchingAsOfNow(index: VectorIndex, query: string, timings: RequestTimings): VectorIndex {
  const asOfNow = index.searchAsOfNow?.();
  if (!asOfNow) return index;
  timings.time("vector.catch_up", () => asOfNow.caughtUp).catch(() => {});
  return {
    ensureCollections: (beforeMaking) => index.ensureCollections(beforeMaking),
    upsert: (collection, points) => index.upsert(collection, points),
    delete: (collection, refs) => index.delete(collection, refs),
    ...(index.serves && { serves: (collection, filter) => index.serves!(collection, filter) }),
    search: asOfNow.search,
    text: wordsOnce(asOfNow.text, query),
  };
}

/** `text`, with the lexemes of `query` made once, starting now (a failure is reported by the searches that use them). */
function wordsOnce(text: TextArm, query: string): TextArm {
  const words = text.words(query);
  words.catch(() => {});
  return { ...text, words: (asked) => (asked === query ? words : text.words(asked)) };
}

/** `work`, or the signal's reason as soon as it is aborted. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // Its own failure (the embedder's answer to the same abort, mostly) is not reported again.
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
