import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { Params, VectorParam } from "./params.ts";
import { valuesList } from "./values-list.ts";

/**
 * The kinds of learning re-embedded, project by project, when the embedding model changes.
 * Interactions are not among them: embedPendingInteractions gives a user's interactions vectors
 * of the current model as it finds them.
 */
export type EmbeddedKind = "profiles" | "user_playbooks" | "agent_playbooks";

/** A row whose vector came from another model, with the columns its embedding text is made of. */
export interface StaleRow {
  row_id: string;
  content: string;
  /** A playbook's trigger; '' for a profile, which has none. */
  trigger: string;
}

/** Each kind's table (named as the kind), its id column, and whether it has a trigger column. */
const TABLES: Record<EmbeddedKind, { idColumn: string; idType: "text" | "int8"; hasTrigger: boolean }> = {
  profiles: { idColumn: "profile_id", idType: "text", hasTrigger: false },
  user_playbooks: { idColumn: "user_playbook_id", idType: "int8", hasTrigger: true },
  agent_playbooks: { idColumn: "agent_playbook_id", idType: "int8", hasTrigger: true },
};

/** In the order a project is re-embedded: profiles first, as before playbooks were covered. */
export const EMBEDDED_KINDS = Object.keys(TABLES) as EmbeddedKind[];

/** Rows of `kind` whose vector came from another model than `modelId`, in a stable order, for re-embedding. */
export function findRowsWithStaleEmbedding(sql: Sql, scope: Scope, kind: EmbeddedKind, modelId: string, limit: number): Promise<StaleRow[]> {
  const { idColumn, hasTrigger } = TABLES[kind];
  return sql.query<StaleRow>(
    `SELECT ${idColumn}::text AS row_id, content, ${hasTrigger ? "trigger" : "''::text AS trigger"} FROM ${kind}
     WHERE org_id = $1 AND project_id = $2 AND embedding_model IS DISTINCT FROM $3
     ORDER BY ${idColumn} LIMIT $4`,
    [scope.orgId, scope.projectId, modelId, limit],
  );
}

/** Rows of every kind of the project still carrying another model's vector (or none). */
export async function countRowsWithStaleEmbedding(sql: Sql, scope: Scope, modelId: string): Promise<number> {
  const counts = EMBEDDED_KINDS.map((kind) => `(SELECT count(*) FROM ${kind} WHERE org_id = $1 AND project_id = $2 AND embedding_model IS DISTINCT FROM $3)`);
  const [row] = await sql.query<{ n: number }>(`SELECT (${counts.join(" + ")})::int8 AS n`, [scope.orgId, scope.projectId, modelId]);
  return row!.n;
}

/**
 * Stores new embeddings, but only where the text is still the one that was embedded, so a
 * concurrent edit is never overwritten with the vector of its old text. The outbox triggers note
 * each stored row for the vector index (migrations/0012_vector_outbox.sql).
 */
export async function storeEmbeddings(
  sql: Sql,
  scope: Scope,
  kind: EmbeddedKind,
  modelId: string,
  updates: (StaleRow & { embedding: number[] })[],
): Promise<number> {
  if (updates.length === 0) return 0;
  const { idColumn, idType, hasTrigger } = TABLES[kind];
  const params = new Params();
  const [org, project, model] = [params.add(scope.orgId), params.add(scope.projectId), params.add(modelId)];
  const values = updates.map((u) => [u.row_id, u.content, u.trigger, new VectorParam(u.embedding)]);
  // A batch is a page of rows (the caller's batch size), far within the parameter limit.
  const rows = await sql.query(
    `UPDATE ${kind} t SET embedding = u.embedding, embedding_model = ${model}
     FROM (VALUES ${valuesList(params, values, ["text", "text", "text", "vector"])}) AS u(row_id, content, trigger, embedding)
     WHERE t.org_id = ${org} AND t.project_id = ${project} AND t.${idColumn} = u.row_id::${idType}
       AND t.content = u.content${hasTrigger ? " AND t.trigger = u.trigger" : ""}
     RETURNING 1`,
    params.values,
  );
  return rows.length;
}

/** The projects holding rows of any kind whose vector came from another model than `modelId`. */
export async function findScopesWithStaleEmbeddings(sql: Sql, modelId: string): Promise<Scope[]> {
  const scopes = EMBEDDED_KINDS.map((kind) => `SELECT org_id, project_id FROM ${kind} WHERE embedding_model IS DISTINCT FROM $1`);
  const rows = await sql.query<{ org_id: string; project_id: string }>(
    `SELECT DISTINCT org_id, project_id FROM (${scopes.join(" UNION ")}) AS stale ORDER BY org_id, project_id`,
    [modelId],
  );
  return rows.map((row) => ({ orgId: row.org_id, projectId: row.project_id }));
}
