import type { Collection } from "../collections.ts";
import type { PayloadValue, PointRef, VectorFilter } from "../vector-index.ts";
import { payloadFilter } from "./payload-filter.ts";
import { packTsvector } from "./tsvector-text.ts";

/** One row's stored search_text, in PostgreSQL's text form, read as the database holds it, never made here. */
export interface TextDocument extends PointRef {
  payload: Record<string, PayloadValue>;
  searchText: string;
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

/**
 * What a position of weight D, C, B, A adds to the rank's sum: tsrank.c holds PostgreSQL's default
 * weights as float4 and sums, for a cover of one position, 1 / (1 / weight) in double.
 */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map((weight) => 1 / (1 / Math.fround(weight)));

/**
 * One collection's documents in one project. Memory is the constraint here (every lexeme of every
 * row of an embedded deployment, hundreds of thousands of rows, stays in the process), so a
 * document is a slot number, and what it holds is packed into one Int32Array: per lexeme its id,
 * its count of positions, then (position, weight) pairs. A lexeme's holders are a growable list of
 * slots; a document removed leaves its slots in those lists (stale: a search checks the slot still
 * holds the lexeme), and a list is compacted once half of it is stale.
 */
class TextPartition {
  private readonly slotOf = new Map<string, number>();
  /** The user whose rows these are ("" for rows of no user). */
  constructor(readonly user: string) {}

  get size(): number {
    return this.slotOf.size;
  }

  readonly ids: (string | undefined)[] = [];
  readonly payloads: (Record<string, PayloadValue> | undefined)[] = [];
  readonly terms: (Int32Array | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  readonly holders = new Map<number, Holders>();
  /** A search's mark per slot (its search number), so a slot listed twice is scored once. */
  private marks = new Int32Array(0);
  private searches = 0;

  /** Adds a document; ProjectText has removed any earlier version of it first, from whichever partition held it. */
  upsert(document: TextDocument, lexemeId: (lexeme: string) => number): void {
    const slot = this.freeSlots.pop() ?? this.ids.length;
    const terms = packTsvector(document.searchText, lexemeId);
    for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
      let holders = this.holders.get(terms[at]!);
      if (!holders) {
        holders = new Holders();
        this.holders.set(terms[at]!, holders);
      }
      holders.add(slot);
    }
    this.slotOf.set(document.id, slot);
    this.ids[slot] = document.id;
    this.payloads[slot] = document.payload;
    this.terms[slot] = terms;
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const terms = this.terms[slot]!;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.payloads[slot] = undefined;
    this.terms[slot] = undefined;
    this.freeSlots.push(slot);
    for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
      const lexeme = terms[at]!;
      const holders = this.holders.get(lexeme)!;
      if (holders.markStale() && holders.compact((held) => termsAt(this.terms[held], lexeme) >= 0) === 0) this.holders.delete(lexeme);
    }
  }

  /** Each live slot holding any of the lexemes, once. */
  candidates(lexemes: readonly number[]): number[] {
    if (this.marks.length < this.ids.length) this.marks = new Int32Array(Math.max(this.ids.length, 2 * this.marks.length));
    if (this.searches === 0x7fffffff) {
      this.marks.fill(0);
      this.searches = 0;
    }
    const mark = ++this.searches;
    const slots: number[] = [];
    for (const lexeme of lexemes) {
      const holders = this.holders.get(lexeme);
      if (!holders) continue;
      for (let i = 0; i < holders.length; i++) {
        const slot = holders.slots[i]!;
        if (this.marks[slot] === mark) continue;
        this.marks[slot] = mark;
        slots.push(slot);
      }
    }
    return slots;
  }
}

/** The slots holding one lexeme, some possibly stale. */
class Holders {
  slots = new Int32Array(4);
  length = 0;
  private stale = 0;

  add(slot: number): void {
    if (this.length === this.slots.length) {
      const grown = new Int32Array(2 * this.slots.length);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[this.length++] = slot;
  }

  /** Counts one more stale entry; whether half of the list is now stale. */
  markStale(): boolean {
    this.stale++;
    return 2 * this.stale >= this.length;
  }

  /** Keeps the slots that still hold the lexeme, each once; how many are left. */
  compact(holds: (slot: number) => boolean): number {
    const kept = new Set<number>();
    for (let i = 0; i < this.length; i++) if (holds(this.slots[i]!)) kept.add(this.slots[i]!);
    this.slots = new Int32Array(Math.max(4, kept.size));
    this.slots.set([...kept]);
    this.length = kept.size;
    this.stale = 0;
    return kept.size;
  }
}

/** Where `lexeme`'s entry starts in a document's packed terms, or -1. */
function termsAt(terms: Int32Array | undefined, lexeme: number): number {
  if (!terms) return -1;
  for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) if (terms[at] === lexeme) return at;
  return -1;
}

/**
 * One collection's documents in one project, apart per user (payload user_id; "" for rows of no
 * user): a search of one user's rows reads only that user's holder lists, not the project's.
 */
class ProjectText {
  readonly ofUser = new Map<string, TextPartition>();
  private readonly partitionOfId = new Map<string, TextPartition>();

  upsert(document: TextDocument, lexemeId: (lexeme: string) => number): void {
    this.delete(document.id);
    const user = typeof document.payload.user_id === "string" ? document.payload.user_id : "";
    let partition = this.ofUser.get(user);
    if (!partition) {
      partition = new TextPartition(user);
      this.ofUser.set(user, partition);
    }
    partition.upsert(document, lexemeId);
    this.partitionOfId.set(document.id, partition);
  }

  delete(id: string): void {
    const partition = this.partitionOfId.get(id);
    if (!partition) return;
    partition.delete(id);
    this.partitionOfId.delete(id);
    if (partition.size === 0) this.ofUser.delete(partition.user);
  }

  /** The partitions a filter can match: one user's when it names one, else every user's. */
  partitionsFor(filter: VectorFilter): Iterable<TextPartition> {
    const user = filter.must.find((condition) => condition.key === "user_id" && "equals" in condition);
    if (!user || !("equals" in user) || typeof user.equals !== "string") return this.ofUser.values();
    const partition = this.ofUser.get(user.equals);
    return partition ? [partition] : [];
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
  private readonly partitions = new Map<string, ProjectText>();
  /** Every lexeme seen, numbered: documents and holder lists name lexemes by these numbers. */
  private readonly lexemeIds = new Map<string, number>();
  private readonly lexemeId = (lexeme: string): number => {
    let id = this.lexemeIds.get(lexeme);
    if (id === undefined) {
      id = this.lexemeIds.size;
      this.lexemeIds.set(lexeme, id);
    }
    return id;
  };

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
    this.lexemeIds.clear();
  }

  upsert(collection: Collection, documents: readonly TextDocument[]): void {
    if (!this.holds(collection)) return;
    for (const document of documents) this.partitionOf(collection, document.scope, true)!.upsert(document, this.lexemeId);
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
    const project = this.partitionOf(collection, query.filter.scope, false);
    const words = [...new Set(query.words)];
    const common = new Set(query.common);
    const distinctive = words.some((word) => !common.has(word)) ? words.filter((word) => !common.has(word)) : words;
    if (!project || distinctive.length === 0) return [];
    const lexemes = distinctive.flatMap((word) => {
      const id = this.lexemeIds.get(word);
      return id === undefined ? [] : [id];
    });
    const passes = payloadFilter(query.filter.must);
    const hits: TextHit[] = [];
    // Where each held lexeme's (position, weight) pairs start and end in a candidate's terms.
    const starts = new Int32Array(lexemes.length);
    const ends = new Int32Array(lexemes.length);
    for (const partition of project.partitionsFor(query.filter)) {
      for (const slot of partition.candidates(lexemes)) {
        const terms = partition.terms[slot];
        if (!terms || !passes(partition.payloads[slot]!)) continue;
        let held = 0;
        for (const lexeme of lexemes) {
          const at = termsAt(terms, lexeme);
          if (at < 0) continue;
          starts[held] = at + 2;
          ends[held] = at + 2 + 2 * terms[at + 1]!;
          held++;
        }
        if (held === 0) continue;
        const rank = rankCd(terms, starts, ends, held);
        hits.push({ id: partition.ids[slot]!, textScore: held === distinctive.length ? rank : Math.fround(rank * this.partialMatch) });
      }
    }
    return hits;
  }

  private partitionOf(collection: Collection, scope: PointRef["scope"], create: boolean): ProjectText | undefined {
    const key = JSON.stringify([collection, scope.orgId, scope.projectId]);
    const project = this.partitions.get(key);
    if (project || !create) return project;
    const made = new ProjectText();
    this.partitions.set(key, made);
    return made;
  }
}

/**
 * ts_rank_cd(…, 32) of an OR query over the positions of the matched lexemes (tsrank.c's
 * calc_rank_cd, one cover a position): the `held` lexemes' pairs, terms[starts[k]] up to
 * terms[ends[k]], each in position order as a tsvector keeps them, summed in position order across
 * lexemes (the first held lexeme first on a tie), as PostgreSQL sums them. Moves `starts` along.
 */
function rankCd(terms: Int32Array, starts: Int32Array, ends: Int32Array, held: number): number {
  let sum = 0;
  for (;;) {
    let next = -1;
    for (let k = 0; k < held; k++) if (starts[k]! < ends[k]! && (next < 0 || terms[starts[k]!]! < terms[starts[next]!]!)) next = k;
    if (next < 0) break;
    sum += WEIGHTS[terms[starts[next]! + 1]!]!;
    starts[next]! += 2;
  }
  return sum > 0 ? Math.fround(sum / (sum + 1)) : 0;
}
