import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { inStatements } from "./in-statements.ts";
import { Params, VectorParam } from "./params.ts";
import { type RankedQuery, type RankedScores, rankedQuerySql } from "./ranked-search.ts";
import { valuesList } from "./values-list.ts";

export interface ToolUsedRecord {
  tool_name: string;
  tool_data: Record<string, unknown>;
  status: string | null;
}

export interface StoredRetrievedLearningRecord {
  kind: string;
  learning_id: string;
  exposure_receipt_digest: string | null;
  exposure_verified: boolean;
}

/** An interaction as stored, without its embedding. */
export interface InteractionRecord {
  interaction_id: number;
  user_id: string;
  request_id: string;
  session_id: string;
  seq: number;
  evaluation_only: boolean;
  created_at: number;
  role: string;
  content: string;
  shadow_content: string;
  expert_content: string;
  image_encoding: string | null;
  user_action: string;
  user_action_description: string | null;
  interacted_image_url: string | null;
  tools_used: ToolUsedRecord[];
  citations: { kind: string; learning_id: string }[];
  retrieved_learnings: StoredRetrievedLearningRecord[];
}

export type InteractionInsert = Omit<InteractionRecord, "interaction_id"> & { embedding: number[] | null; embedding_model: string | null };

const COLUMNS = `interaction_id, user_id, request_id, session_id, seq, evaluation_only, created_at, role, content, shadow_content,
  expert_content, image_encoding, user_action, user_action_description, interacted_image_url, tools_used, citations, retrieved_learnings`;

const INSERT_COLUMNS = [
  ["org_id", null],
  ["project_id", null],
  ["user_id", null],
  ["request_id", null],
  ["session_id", null],
  ["seq", "int8"],
  ["evaluation_only", "bool"],
  ["created_at", "int8"],
  ["role", null],
  ["content", null],
  ["shadow_content", null],
  ["expert_content", null],
  ["image_encoding", null],
  ["user_action", null],
  ["user_action_description", null],
  ["interacted_image_url", null],
  ["tools_used", "jsonb"],
  ["citations", "jsonb"],
  ["retrieved_learnings", "jsonb"],
  ["embedding", "vector"],
  ["embedding_model", null],
] as const;

/** Inserts interactions; returns their new ids in input order. Both drivers serialize the jsonb values. */
export async function insertInteractions(sql: Sql, scope: Scope, interactions: InteractionInsert[]): Promise<number[]> {
  return inStatements(interactions, INSERT_COLUMNS.length, async (chunk) => {
    const params = new Params();
    const rows = chunk.map((i) => [
      scope.orgId,
      scope.projectId,
      i.user_id,
      i.request_id,
      i.session_id,
      i.seq,
      i.evaluation_only,
      i.created_at,
      i.role,
      i.content,
      i.shadow_content,
      i.expert_content,
      i.image_encoding,
      i.user_action,
      i.user_action_description,
      i.interacted_image_url,
      i.tools_used,
      i.citations,
      i.retrieved_learnings,
      i.embedding && new VectorParam(i.embedding),
      i.embedding_model,
    ]);
    const inserted = await sql.query<{ interaction_id: number }>(
      `INSERT INTO interactions (${INSERT_COLUMNS.map(([name]) => name).join(", ")})
       VALUES ${valuesList(
         params,
         rows,
         INSERT_COLUMNS.map(([, cast]) => cast),
       )}
       RETURNING interaction_id`,
      params.values,
    );
    return inserted.map((row) => row.interaction_id);
  });
}

export interface InteractionFilters {
  userId?: string;
  requestIds?: string[];
  sessionId?: string;
  /** Only the user's interactions at or after this stream position. */
  fromSeq?: number;
  /** Inclusive bounds of created_at. */
  createdFrom?: number;
  createdTo?: number;
  /** The exact source of the interaction's request; unset or empty: any. */
  source?: string;
}

function filterSql(scope: Scope, filters: InteractionFilters, params: Params): string {
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`];
  if (filters.userId !== undefined) where.push(`user_id = ${params.add(filters.userId)}`);
  if (filters.requestIds) where.push(`request_id = ANY(${params.add(filters.requestIds)}::text[])`);
  if (filters.sessionId !== undefined) where.push(`session_id = ${params.add(filters.sessionId)}`);
  if (filters.fromSeq !== undefined) where.push(`seq >= ${params.add(filters.fromSeq)}`);
  if (filters.createdFrom !== undefined) where.push(`created_at >= ${params.add(filters.createdFrom)}`);
  if (filters.createdTo !== undefined) where.push(`created_at <= ${params.add(filters.createdTo)}`);
  if (filters.source) {
    where.push(`EXISTS (SELECT 1 FROM requests r WHERE r.org_id = interactions.org_id AND r.project_id = interactions.project_id
      AND r.request_id = interactions.request_id AND r.source = ${params.add(filters.source)})`);
  }
  return where.join(" AND ");
}

/** Interactions passing the filters, newest first. */
export async function listInteractions(sql: Sql, scope: Scope, filters: InteractionFilters, limit: number): Promise<InteractionRecord[]> {
  const params = new Params();
  const where = filterSql(scope, filters, params);
  return sql.query<InteractionRecord>(
    `SELECT ${COLUMNS} FROM interactions WHERE ${where} ORDER BY interaction_id DESC LIMIT ${params.add(limit)}`,
    params.values,
  );
}

/** Deletes one interaction of a user; returns how many went (0 or 1). */
export async function deleteInteractionOfUser(sql: Sql, scope: Scope, userId: string, interactionId: number): Promise<number> {
  const rows = await sql.query("DELETE FROM interactions WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND interaction_id = $4 RETURNING 1", [
    scope.orgId,
    scope.projectId,
    userId,
    interactionId,
  ]);
  return rows.length;
}

/** Interactions of the given requests, in stream order. */
export async function listInteractionsOfRequests(sql: Sql, scope: Scope, requestIds: string[]): Promise<InteractionRecord[]> {
  if (requestIds.length === 0) return [];
  const params = new Params();
  const where = filterSql(scope, { requestIds }, params);
  return sql.query<InteractionRecord>(`SELECT ${COLUMNS} FROM interactions WHERE ${where} ORDER BY user_id, seq`, params.values);
}

/** The stream position from which a user's most recent `count` interactions start (1 when they have fewer). */
export async function seqOfMostRecent(sql: Sql, scope: Scope, userId: string, count: number): Promise<number> {
  const [row] = await sql.query<{ seq: number | null }>(
    `SELECT min(seq) AS seq FROM (SELECT seq FROM interactions WHERE org_id = $1 AND project_id = $2 AND user_id = $3
       ORDER BY seq DESC LIMIT $4) recent`,
    [scope.orgId, scope.projectId, userId, count],
  );
  return row?.seq ?? 1;
}

/** Vector, full-text or hybrid (fused) search over the interactions passing the filters, best first. */
export async function searchInteractions(
  sql: Sql,
  scope: Scope,
  filters: InteractionFilters,
  search: RankedQuery,
): Promise<(InteractionRecord & RankedScores)[]> {
  const params = new Params();
  const ranked = rankedQuerySql(
    { table: "interactions", idColumn: "interaction_id", idType: "int8", where: filterSql(scope, filters, params), params },
    search,
  );
  return sql.query<InteractionRecord & RankedScores>(
    `SELECT ${COLUMNS}, ranked.score, ranked.similarity, ranked.text_score
     FROM (${ranked}) ranked JOIN interactions ON interactions.interaction_id = ranked.id
     ORDER BY ranked.score DESC, interactions.interaction_id`,
    params.values,
  );
}

/**
 * The interactions a window of a user's stream holds for extraction: the `size` most recent ones at
 * or before `endSeq`, evaluation-only ones excluded, in stream order.
 */
export async function windowInteractions(sql: Sql, scope: Scope, userId: string, endSeq: number, size: number): Promise<InteractionRecord[]> {
  const rows = await sql.query<InteractionRecord>(
    `SELECT ${COLUMNS} FROM interactions
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND seq <= $4 AND NOT evaluation_only
     ORDER BY seq DESC LIMIT $5`,
    [scope.orgId, scope.projectId, userId, endSeq, size],
  );
  return rows.reverse();
}

/** Which of a project's interactions a generation reads; evaluation-only ones never count. */
export interface GenerationFilters {
  userId?: string;
  /** Inclusive bounds of created_at. */
  createdFrom?: number;
  createdTo?: number;
  /** The exact source of the interaction's request; unset or empty: any. */
  source?: string;
  /** The agent version of the interaction's request; unset: any. */
  agentVersion?: string;
}

function generationConditions(scope: Scope, filters: GenerationFilters, params: Params): string[] {
  const where = [`i.org_id = ${params.add(scope.orgId)}`, `i.project_id = ${params.add(scope.projectId)}`, "NOT i.evaluation_only"];
  if (filters.userId !== undefined) where.push(`i.user_id = ${params.add(filters.userId)}`);
  if (filters.createdFrom !== undefined) where.push(`i.created_at >= ${params.add(filters.createdFrom)}`);
  if (filters.createdTo !== undefined) where.push(`i.created_at <= ${params.add(filters.createdTo)}`);
  const ofRequest = [];
  if (filters.source) ofRequest.push(`r.source = ${params.add(filters.source)}`);
  if (filters.agentVersion !== undefined) ofRequest.push(`r.agent_version = ${params.add(filters.agentVersion)}`);
  if (ofRequest.length > 0) {
    where.push(`EXISTS (SELECT 1 FROM requests r WHERE r.org_id = i.org_id AND r.project_id = i.project_id
      AND r.request_id = i.request_id AND ${ofRequest.join(" AND ")})`);
  }
  return where;
}

const QUALIFIED_COLUMNS = COLUMNS.replace(/(\w+)/g, "i.$1");

/** A user's interactions past a stream position that pass the filters, at most `limit`, in stream order. */
export async function interactionsBetween(
  sql: Sql,
  scope: Scope,
  filters: GenerationFilters & { userId: string; afterSeq: number; limit: number },
): Promise<InteractionRecord[]> {
  const params = new Params();
  const where = [...generationConditions(scope, filters, params), `i.seq > ${params.add(filters.afterSeq)}`];
  return sql.query<InteractionRecord>(
    `SELECT ${QUALIFIED_COLUMNS} FROM interactions i WHERE ${where.join(" AND ")} ORDER BY i.seq LIMIT ${params.add(filters.limit)}`,
    params.values,
  );
}

/** A user's most recent `limit` interactions that pass the filters, in stream order. */
export async function latestInteractions(sql: Sql, scope: Scope, filters: GenerationFilters & { userId: string }, limit: number): Promise<InteractionRecord[]> {
  const params = new Params();
  const where = generationConditions(scope, filters, params);
  const rows = await sql.query<InteractionRecord>(
    `SELECT ${QUALIFIED_COLUMNS} FROM interactions i WHERE ${where.join(" AND ")} ORDER BY i.seq DESC LIMIT ${params.add(limit)}`,
    params.values,
  );
  return rows.reverse();
}

/** The users having interactions that pass the filters, in id order; only those after `afterUserId` when given (a resumed generation's cursor). */
export async function usersWithInteractions(sql: Sql, scope: Scope, filters: GenerationFilters, afterUserId?: string): Promise<string[]> {
  const params = new Params();
  const where = generationConditions(scope, filters, params);
  if (afterUserId !== undefined) where.push(`i.user_id > ${params.add(afterUserId)}`);
  const rows = await sql.query<{ user_id: string }>(
    `SELECT DISTINCT i.user_id FROM interactions i WHERE ${where.join(" AND ")} ORDER BY i.user_id`,
    params.values,
  );
  return rows.map((row) => row.user_id);
}

/** A user's interactions whose response cited a learning, newest first: the evidence of how it worked. */
export async function interactionsCiting(
  sql: Sql,
  scope: Scope,
  citation: { userId: string; kind: string; learningId: string },
  limit: number,
): Promise<InteractionRecord[]> {
  return sql.query<InteractionRecord>(
    `SELECT ${COLUMNS} FROM interactions
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND citations @> $4::jsonb
     ORDER BY seq DESC LIMIT $5`,
    [scope.orgId, scope.projectId, citation.userId, [{ kind: citation.kind, learning_id: citation.learningId }], limit],
  );
}

/** Interactions whose text is not only white space carry a vector (see embeddingTextOfInteraction). */
export const HAS_TEXT = "(content ~ '\\S' OR coalesce(user_action_description, '') ~ '\\S')";

/** A user's interactions that have text but no vector of `modelId` yet, oldest first. */
export async function interactionsWithoutEmbedding(
  sql: Sql,
  scope: Scope,
  userId: string,
  modelId: string,
  limit: number,
  /** Only those after this place in the user's stream (the last `seq` of the batch before). */
  afterSeq = 0,
): Promise<{ interaction_id: number; seq: number; content: string; user_action_description: string | null }[]> {
  return sql.query(
    `SELECT interaction_id, seq, content, user_action_description FROM interactions
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND embedding_model IS DISTINCT FROM $4 AND ${HAS_TEXT} AND seq > $6
     ORDER BY seq LIMIT $5`,
    [scope.orgId, scope.projectId, userId, modelId, limit, afterSeq],
  );
}

/** Stores interaction vectors (interactions never change, so no compare-and-set is needed). */
export async function storeInteractionEmbeddings(
  sql: Sql,
  scope: Scope,
  modelId: string,
  updates: { interaction_id: number; embedding: number[] }[],
): Promise<void> {
  if (updates.length === 0) return;
  const params = new Params();
  const [org, project, model] = [params.add(scope.orgId), params.add(scope.projectId), params.add(modelId)];
  const rows = updates.map((u) => [u.interaction_id, new VectorParam(u.embedding)]);
  await sql.query(
    `UPDATE interactions i SET embedding = u.embedding, embedding_model = ${model}
     FROM (VALUES ${valuesList(params, rows, ["int8", "vector"])}) AS u(interaction_id, embedding)
     WHERE i.org_id = ${org} AND i.project_id = ${project} AND i.interaction_id = u.interaction_id`,
    params.values,
  );
}
