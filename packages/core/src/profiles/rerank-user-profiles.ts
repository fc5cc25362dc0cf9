import { rerankerInstallAdvice } from "@als/ai";
import { AppError, type RerankUserProfilesRequest } from "@als/contract";
import { type ProfileRecord, profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * The caller's profiles, ordered by the cross-encoder's relevance of each one's content to the
 * query, at most top_k. An id resolves when it names a live profile of this user in any status
 * (the caller chose it, e.g. from an archived search); other users' ids and unknown ids are
 * dropped silently. Equal scores keep the order of profile_ids.
 */
export async function rerankUserProfiles(deps: CoreDeps, scope: Scope, request: RerankUserProfilesRequest): Promise<ProfileRecord[]> {
  if (!deps.reranker) throw new AppError("reranker_unavailable", `No reranker is configured in this process. ${rerankerInstallAdvice}`);
  const ids = [...new Set(request.profile_ids)];
  const found =
    ids.length === 0 ? [] : await profiles.listProfiles(deps.db, scope, { userId: request.user_id, profileIds: ids, liveAt: deps.now() }, ids.length);
  const position = new Map(ids.map((id, index) => [id, index]));
  const inRequestOrder = found.sort((a, b) => position.get(a.profile_id)! - position.get(b.profile_id)!);
  // Asked even for no documents, so that a missing model answers 503 whatever the ids.
  const scores = await deps.reranker.score(
    request.query,
    inRequestOrder.map((profile) => profile.content),
  );
  return inRequestOrder
    .map((profile, index) => ({ profile, score: scores[index]! }))
    .sort((a, b) => b.score - a.score)
    .slice(0, request.top_k)
    .map(({ profile }) => profile);
}
