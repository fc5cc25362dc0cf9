import { type Scope, StorageUnavailableError } from "@als/db";
import type { Collection } from "./collections.ts";
import type { TextQuery, TextRanking } from "./in-process/text-index.ts";

/**
 * A vector index kept beside the record (Qdrant) that cannot be reached or answers with a server
 * error: storage that is unavailable (503) for a request, and a wait, not a failure, for durable
 * work that needs the index to have taken the record's changes (an erasure's final check).
 */
export class VectorIndexUnavailableError extends StorageUnavailableError {
  constructor(cause: unknown) {
    super(cause, "connection");
    this.name = "VectorIndexUnavailableError";
    this.message = "the vector index is unavailable";
  }
}

/** A payload value: what the filterable columns of a row hold. */
export type PayloadValue = string | number | null | string[];

/** One row of a searchable table as a point: its id within its project, its vector, its filterable columns. */
export interface VectorPoint {
  scope: Scope;
  id: string;
  vector: number[];
  payload: Record<string, PayloadValue>;
}

export type PointRef = Pick<VectorPoint, "scope" | "id">;

export interface NumericRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** One condition on a payload key; the keys a collection can filter on are in COLLECTIONS. */
export type Condition =
  | { key: string; equals: string | number }
  | { key: string; anyOf: string[] }
  /** The array under `key` shares at least one value with these (tags). */
  | { key: string; overlaps: string[] }
  /** `orNull`: a point whose value is null passes too (a profile that never expires). */
  | { key: string; range: NumericRange; orNull?: boolean };

/** The points of one project that meet every condition. */
export interface VectorFilter {
  scope: Scope;
  must: Condition[];
}

export interface VectorQuery {
  vector: readonly number[];
  filter: VectorFilter;
  topK: number;
  /** Only points whose cosine similarity to `vector` is above this. */
  threshold?: number | undefined;
}

export interface VectorHit {
  id: string;
  similarity: number;
}

/**
 * Nearest-neighbour search over named collections, one per searchable table. Every implementation
 * applies the filter inside its own query (never to a fixed list of candidates), so `topK` hits
 * come back whenever that many points pass the filter.
 */
export interface VectorIndex {
  /**
   * Makes the collections that are missing; true when it made any, so the index must be filled from
   * the record. `beforeMaking` runs first when one is missing (the rows are noted for the fill), so a
   * start killed once the collections exist has not left them empty for good.
   */
  ensureCollections(beforeMaking?: () => Promise<void>): Promise<boolean>;
  /** Writes the points, replacing any of the same scope and id. */
  upsert(collection: Collection, points: VectorPoint[]): Promise<void>;
  delete(collection: Collection, refs: PointRef[]): Promise<void>;
  /**
   * False: this search is better left to PostgreSQL, which holds every vector too (a collection the
   * index does not hold, or a filter that passes few points). Absent: it serves every search.
   */
  serves?(collection: Collection, filter: VectorFilter): boolean;
  /**
   * Present on an index that follows the record on its own (the in-process graph): takes in every
   * change committed so far and saves itself. Absent: drains of the vector outbox push into it.
   */
  drain?(): Promise<void>;
  /**
   * Present on an index that follows the record on its own: begins taking in every change committed
   * so far (`caughtUp`) and returns a search that waits for that catch-up rather than a later one, so
   * a request can overlap it with its query's embedding, with its text arm waiting for the same
   * catch-up. The search sees every write committed before this call.
   */
  searchAsOfNow?(): { caughtUp: Promise<void>; search: VectorIndex["search"]; text: TextArm };
  /** Present on an index that holds the rows' search_text too (the in-process one): the full-text arm without a statement. */
  text?: TextArm | undefined;
  /** The nearest points passing the filter, nearest first. */
  search(collection: Collection, query: VectorQuery): Promise<VectorHit[]>;
}

/** The full-text arm kept beside a vector index (TextIndex), scoring as the SQL text arm does. */
export interface TextArm {
  /** False: this search's text arm is left to the database (a collection not held, a selective filter, not caught up). */
  serves(collection: Collection, filter: VectorFilter): boolean;
  /** The query's lexemes as the SQL text arm makes them (to_tsvector('english')). */
  words(text: string): Promise<string[]>;
  /** The rows passing the filter that hold a distinctive query word (the best `query.best` of them), with their text scores. */
  search(collection: Collection, query: TextQuery): Promise<TextRanking>;
  /**
   * The rows of `ids` as a search returns them (each row's record, from memory), in the order asked;
   * null when one is no longer held or no longer passes the filter: the database must be asked.
   */
  returnedRows(collection: Collection, filter: VectorFilter, ids: readonly string[]): Record<string, unknown>[] | null;
}
