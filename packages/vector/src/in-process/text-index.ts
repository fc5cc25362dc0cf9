import type { Collection } from "../collections.ts";
import type { PayloadValue, PointRef, VectorFilter } from "../vector-index.ts";
import { payloadFilter } from "./payload-filter.ts";

/**
 * One row's stored search_text: each lexeme with its positions and their weights (0 = D … 3 = A,
 * as PostgreSQL numbers them), read as the database holds it, never made here.
 */
export interface TextDocument extends PointRef {
  payload: Record<string, PayloadValue>;
  lexemes: [lexeme: string, positions: number[], weights: number[]][];
}

/** A text query: the query's lexemes (to_tsvector('english') of its text) and the table's common ones. */
export interface TextQuery {
  filter: VectorFilter;
  words: readonly string[];
  common: readonly string[];
}

export interface TextHit {
  id: string;
  /** ts_rank_cd(search_text, words, 32), cut to `partialMatch` of itself unless the row holds every distinctive word. */
  textScore: number;
}

/** PostgreSQL's default weights of D, C, B, A (float4, as tsrank.c holds them), each as the inverse it sums. */
const INVERSE_WEIGHTS = [0.1, 0.2, 0.4, 1.0].map((weight) => 1 / Math.fround(weight));

interface StoredDocument {
  payload: Record<string, PayloadValue>;
  /** Lexeme → its positions and weights, interleaved (position, weight, position, weight, …). */
  lexemes: Map<string, Int32Array>;
}

/** The documents of one collection in one project, and which of them hold each lexeme. */
class TextPartition {
  readonly documents = new Map<string, StoredDocument>();
  readonly holders = new Map<string, Set<string>>();

  upsert(document: TextDocument): void {
    this.delete(document.id);
    const lexemes = new Map<string, Int32Array>();
    for (const [lexeme, positions, weights] of document.lexemes) {
      const entries = new Int32Array(positions.length * 2);
      positions.forEach((position, i) => {
        entries[2 * i] = position;
        entries[2 * i + 1] = weights[i] ?? 0;
      });
      lexemes.set(lexeme, entries);
      const holders = this.holders.get(lexeme);
      if (holders) holders.add(document.id);
      else this.holders.set(lexeme, new Set([document.id]));
    }
    this.documents.set(document.id, { payload: document.payload, lexemes });
  }

  delete(id: string): void {
    const known = this.documents.get(id);
    if (!known) return;
    for (const lexeme of known.lexemes.keys()) {
      const holders = this.holders.get(lexeme)!;
      holders.delete(id);
      if (holders.size === 0) this.holders.delete(lexeme);
    }
    this.documents.delete(id);
  }
}

/**
 * The full-text arm inside the process: every row's stored tsvector, scored as the SQL text arm of
 * packages/db scores it (rankedSearchSql), so a search ranks the same rows the same way without a
 * statement. For a query of OR'd lexemes, ts_rank_cd with normalisation 32 is, exactly, Σ over the
 * row's positions of a query lexeme (in position order) of that position's weight, s, then
 * s / (s + 1) as float4: each such position is a cover of its own. What it holds comes from the
 * record (ChangeLogFollower in packages/core reads the rows and follows their changes).
 */
export class TextIndex {
  private readonly partitions = new Map<string, TextPartition>();

  constructor(
    readonly collections: readonly Collection[],
    /** The share of its rank a row holding only some distinctive words keeps (FUSION.partialMatch). */
    private readonly partialMatch: number,
  ) {}

  holds(collection: Collection): boolean {
    return this.collections.includes(collection);
  }

  clear(): void {
    this.partitions.clear();
  }

  upsert(collection: Collection, documents: readonly TextDocument[]): void {
    if (!this.holds(collection)) return;
    for (const document of documents) this.partitionOf(collection, document.scope, true)!.upsert(document);
  }

  delete(collection: Collection, refs: readonly PointRef[]): void {
    for (const ref of refs) this.partitionOf(collection, ref.scope, false)?.delete(ref.id);
  }

  /**
   * Every row passing the filter that holds a distinctive word of the query, with its text score.
   * Distinctive: not among the table's common lexemes, unless every word of the query is.
   */
  search(collection: Collection, query: TextQuery): TextHit[] {
    if (!this.holds(collection)) throw new Error(`the in-process text index does not hold ${collection}`);
    const partition = this.partitionOf(collection, query.filter.scope, false);
    const words = [...new Set(query.words)];
    const common = new Set(query.common);
    const distinctive = words.some((word) => !common.has(word)) ? words.filter((word) => !common.has(word)) : words;
    if (!partition || distinctive.length === 0) return [];
    const candidates = new Set<string>();
    for (const word of distinctive) for (const id of partition.holders.get(word) ?? []) candidates.add(id);
    const passes = payloadFilter(query.filter.must);
    const hits: TextHit[] = [];
    for (const id of candidates) {
      const document = partition.documents.get(id)!;
      if (!passes(document.payload)) continue;
      const held = distinctive.flatMap((word) => {
        const entries = document.lexemes.get(word);
        return entries ? [entries] : [];
      });
      const rank = rankCd(held);
      hits.push({ id, textScore: held.length === distinctive.length ? rank : Math.fround(rank * this.partialMatch) });
    }
    return hits;
  }

  private partitionOf(collection: Collection, scope: PointRef["scope"], create: boolean): TextPartition | undefined {
    const key = JSON.stringify([collection, scope.orgId, scope.projectId]);
    const partition = this.partitions.get(key);
    if (partition || !create) return partition;
    const made = new TextPartition();
    this.partitions.set(key, made);
    return made;
  }
}

/** ts_rank_cd(…, 32) of an OR query over the positions of the matched lexemes (tsrank.c's calc_rank_cd, one cover a position). */
function rankCd(held: readonly Int32Array[]): number {
  const positions: [position: number, weight: number][] = [];
  for (const entries of held) for (let i = 0; i < entries.length; i += 2) positions.push([entries[i]!, entries[i + 1]!]);
  positions.sort((a, b) => a[0] - b[0]);
  let sum = 0;
  for (const [, weight] of positions) sum += 1 / INVERSE_WEIGHTS[weight]!;
  return sum > 0 ? Math.fround(sum / (sum + 1)) : 0;
}
