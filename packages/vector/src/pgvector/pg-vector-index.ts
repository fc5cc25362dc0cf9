import { agentPlaybooks, nearestSql, Params, profiles, type Sql, userPlaybooks, VectorParam, vectorFromBinary } from "@als/db";
import { type Collection, checkPayloadKey, payloadKeysOf } from "../collections.ts";
import type { TextDocument } from "../in-process/text-index.ts";
import type { PayloadValue, PointRef, VectorHit, VectorIndex, VectorPoint, VectorQuery } from "../vector-index.ts";
import { filterSql } from "./filter-sql.ts";

/** A row as the in-process index holds it: its point (null: the row has no vector) and its text document, with one payload object. */
export interface IndexedRow {
  point: VectorPoint | null;
  document: TextDocument;
}

interface CollectionTable {
  table: Collection;
  idColumn: string;
  idType: "text" | "int8";
  /** The SQL of payload keys that are not a column of the same name. */
  expressions?: Record<string, string>;
  /** The columns a search returns of a row (its record's), for a collection the text index holds. */
  returned?: string;
}

// The tables are never aliased, so an expression can name its table's row.
const TABLES: Record<Collection, CollectionTable> = {
  profiles: { table: "profiles", idColumn: "profile_id", idType: "text", returned: profiles.COLUMNS },
  user_playbooks: { table: "user_playbooks", idColumn: "user_playbook_id", idType: "int8", returned: userPlaybooks.COLUMNS },
  agent_playbooks: {
    table: "agent_playbooks",
    idColumn: "agent_playbook_id",
    idType: "int8",
    returned: agentPlaybooks.COLUMNS,
    expressions: {
      linked_sources: `ARRAY(SELECT u.source FROM agent_playbook_sources s JOIN user_playbooks u ON u.user_playbook_id = s.user_playbook_id
        WHERE s.agent_playbook_id = agent_playbooks.agent_playbook_id)`,
    },
  },
  interactions: { table: "interactions", idColumn: "interaction_id", idType: "int8" },
};

function expressionIn(collection: Collection) {
  return (key: string) => {
    checkPayloadKey(collection, key);
    return TABLES[collection].expressions?.[key] ?? key;
  };
}

/**
 * The VectorIndex of the record itself: each searchable table is a collection and its rows are the
 * points, searched through the table's HNSW index (hnsw.iterative_scan is set by both drivers).
 * Upsert and delete have nothing to do, since the query modules of packages/db write the rows; the
 * points this index reads (`readPoints`) are what a sync pushes to an external index.
 */
export class PgVectorIndex implements VectorIndex {
  constructor(private readonly sql: Sql) {}

  /** The tables are made by the migrations. */
  async ensureCollections(): Promise<boolean> {
    return false;
  }

  async upsert(_collection: Collection, _points: VectorPoint[]): Promise<void> {}

  async delete(_collection: Collection, _refs: PointRef[]): Promise<void> {}

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    const { table, idColumn } = TABLES[collection];
    const params = new Params();
    const where = `${filterSql(query.filter, expressionIn(collection), params)} AND embedding IS NOT NULL`;
    const nearest = nearestSql({ table, idColumn, where, params }, { vector: new VectorParam(query.vector), threshold: query.threshold, limit: query.topK });
    return this.sql.query<VectorHit>(`SELECT id::text, 1 - distance AS similarity FROM (${nearest}) nearest ORDER BY distance`, params.values);
  }

  /**
   * The referenced rows that exist, each as the in-process index holds it: its point (null
   * without a vector) and its document, both with one payload object, as they are now.
   */
  async readRows(collection: Collection, refs: PointRef[]): Promise<IndexedRow[]> {
    if (refs.length === 0) return [];
    const { table, idColumn, idType } = TABLES[collection];
    return this.rowsOf(
      collection,
      `JOIN unnest($1::text[], $2::text[], $3::text[]) AS wanted(org_id, project_id, row_id)
         ON ${table}.org_id = wanted.org_id AND ${table}.project_id = wanted.project_id AND ${idColumn} = wanted.row_id::${idType}`,
      [refs.map((r) => r.scope.orgId), refs.map((r) => r.scope.projectId), refs.map((r) => r.id)],
    );
  }

  /**
   * Up to `limit` rows (as readRows gives them) after the row `after`, in the order of the table's
   * primary key: a rebuild pages through the whole table with it, reading each row once for both
   * parts of the index. Numeric ids are unique in their table and are its whole key; a profile's
   * id is unique within its project.
   */
  async readRowsAfter(collection: Collection, after: PointRef | null, limit: number): Promise<IndexedRow[]> {
    const params = new Params();
    return this.rowsOf(collection, `WHERE true${this.pastSql(collection, after, params)} ${this.pageSql(collection, limit, params)}`, params.values);
  }

  /** Up to `limit` documents of every row after `after`, in the order of readRowsAfter. */
  async readDocumentsAfter(collection: Collection, after: PointRef | null, limit: number): Promise<TextDocument[]> {
    const params = new Params();
    return this.documentsOf(collection, `WHERE true${this.pastSql(collection, after, params)} ${this.pageSql(collection, limit, params)}`, params.values);
  }

  /** The points of the referenced rows that exist and have a vector, as they are now. */
  async readPoints(collection: Collection, refs: PointRef[]): Promise<VectorPoint[]> {
    if (refs.length === 0) return [];
    const { table, idColumn, idType } = TABLES[collection];
    return this.pointsOf(
      collection,
      `JOIN unnest($1::text[], $2::text[], $3::text[]) AS wanted(org_id, project_id, row_id)
         ON ${table}.org_id = wanted.org_id AND ${table}.project_id = wanted.project_id AND ${idColumn} = wanted.row_id::${idType}
       WHERE embedding IS NOT NULL`,
      [refs.map((r) => r.scope.orgId), refs.map((r) => r.scope.projectId), refs.map((r) => r.id)],
    );
  }

  /** The primary key of a collection's table, in the order pages are read. */
  private keyOf(collection: Collection): string[] {
    const { table, idColumn, idType } = TABLES[collection];
    return idType === "int8" ? [idColumn] : [`${table}.org_id`, `${table}.project_id`, idColumn];
  }

  /** The condition (after an AND) that keeps rows past `after` in key order; empty for the first page. */
  private pastSql(collection: Collection, after: PointRef | null, params: Params): string {
    const { idType } = TABLES[collection];
    const start = after && (idType === "int8" ? [after.id] : [after.scope.orgId, after.scope.projectId, after.id]);
    return start
      ? ` AND (${this.keyOf(collection).join(", ")}) > (${start.map((value, i) => `${params.add(value)}::${i === start.length - 1 ? idType : "text"}`).join(", ")})`
      : "";
  }

  private pageSql(collection: Collection, limit: number, params: Params): string {
    return `ORDER BY ${this.keyOf(collection).join(", ")} LIMIT ${params.add(limit)}`;
  }

  /** The documents of the rows `rest` selects: their payloads, search_text (its text form; empty where it is null) and the row as a search returns it. */
  private async documentsOf(collection: Collection, rest: string, values: unknown[]): Promise<TextDocument[]> {
    const rows = await this.select(collection, { vector: false, text: true }, rest, values);
    return rows.map(({ scope, id, payload, row }) => ({ scope, id, payload, searchText: row.search_text!, returned: row.returned! }));
  }

  /** The rows `rest` selects, each with its point (null without a vector) and its document, sharing one payload object. */
  private async rowsOf(collection: Collection, rest: string, values: unknown[]): Promise<IndexedRow[]> {
    const rows = await this.select(collection, { vector: true, text: true }, rest, values);
    return rows.map(({ scope, id, payload, row }) => ({
      point: row.vector ? { scope, id, vector: vectorFromBinary(row.vector), payload } : null,
      document: { scope, id, payload, searchText: row.search_text!, returned: row.returned! },
    }));
  }

  /** The points of the rows of `collection` that `rest` (joins, WHERE, ORDER BY; SQL over its table) selects. */
  private async pointsOf(collection: Collection, rest: string, values: unknown[]): Promise<VectorPoint[]> {
    const rows = await this.select(collection, { vector: true, text: false }, rest, values);
    return rows.map(({ scope, id, payload, row }) => ({ scope, id, vector: vectorFromBinary(row.vector!), payload }));
  }

  /**
   * The rows of `collection` that `rest` selects, each with its reference and payload, and the
   * parts asked for: its vector in pgvector's binary form (null where it has none), its
   * search_text (its text form; empty where it is null) and the row as a search returns it.
   */
  private async select(collection: Collection, parts: { vector: boolean; text: boolean }, rest: string, values: unknown[]) {
    const { table, idColumn, returned } = TABLES[collection];
    if (parts.text && !returned) throw new Error(`the text index does not hold ${collection}`);
    const keys = payloadKeysOf(collection);
    const expressionOf = expressionIn(collection);
    const columns = [
      `${table}.org_id`,
      `${table}.project_id`,
      `${idColumn}::text AS id`,
      ...(parts.vector ? ["vector_send(embedding) AS vector"] : []),
      ...(parts.text
        ? [`coalesce(${table}.search_text::text, '') AS search_text`, `(SELECT row_to_json(returned) FROM (SELECT ${returned}) returned)::text AS returned`]
        : []),
      ...keys.map((key) => `${expressionOf(key)} AS ${key}`),
    ];
    const rows = await this.sql.query<
      Record<string, PayloadValue> & { org_id: string; project_id: string; id: string; vector?: Uint8Array | null; search_text?: string; returned?: string }
    >(`SELECT ${columns.join(", ")} FROM ${table} ${rest}`, values);
    return rows.map((row) => ({
      scope: { orgId: row.org_id, projectId: row.project_id },
      id: row.id,
      payload: Object.fromEntries(keys.map((key) => [key, row[key] ?? null])),
      row,
    }));
  }
}
