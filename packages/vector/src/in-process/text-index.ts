import type { Collection } from "../collections.ts";
import type { PayloadValue, PointRef, VectorFilter } from "../vector-index.ts";
import { payloadFilter } from "./payload-filter.ts";
import { packTsvector } from "./tsvector-text.ts";

/** One row's stored search_text, in PostgreSQL's text form, read as the database holds it, never made here. */
export interface TextDocument extends PointRef {
  payload: Record<string, PayloadValue>;
  searchText: string;
  /** The row as a search returns it: its record's columns as JSON text (row_to_json), parsed only when served. */
  returned: string;
}

/** A text query: the query's lexemes (to_tsvector('english') of its text) and the table's common ones. */
export interface TextQuery {
  filter: VectorFilter;
  words: readonly string[];
  common: readonly string[];
  /**
   * How many of the best rows the caller needs: the ranking's hits are then those rows rather than
   * every matching row (see TextIndex.search). Unset, every row.
   */
  best?: number;
}

/** What a text search found: its hits, and the score of any row by id, under the same query. */
export interface TextRanking {
  hits: TextHit[];
  /**
   * The text score of row `id` under the search's query and filter (null: it holds no distinctive
   * word of the query, or the filter leaves it out), as of now: for rows that were not among the
   * hits, such as the vector arm's when the hits are only the best rows.
   */
  scoreOf(id: string): number | null;
}

export interface TextHit {
  id: string;
  /** ts_rank_cd(search_text, words, 32), cut to `partialMatch` of itself unless the row holds every distinctive word. */
  textScore: number;
}

/**
 * A text score from the positions of the query's lexemes a row holds: ts_rank_cd(…, 32) of the OR
 * query (tsrank.c's calc_rank_cd, one cover a position) sums each position's weight, PostgreSQL's
 * default weights held as float4 (D 0.1, C 0.2, B 0.4, A 1), in double, then s / (s + 1) as float4.
 * C and B are exactly 2 and 4 times D as float4, and every partial sum is a multiple of 2^-27 well
 * within double's precision, so the sum is exact and the same in any order: `tenths` (D positions
 * + 2 × C + 4 × B) × D + the A positions. Cut to `partialMatch` of itself unless the row holds every
 * distinctive word (`full`).
 */
function textScore(tenths: number, a: number, full: boolean, partialMatch: number): number {
  const sum = tenths * WEIGHT_D + a;
  const rank = sum > 0 ? Math.fround(sum / (sum + 1)) : 0;
  return full ? rank : Math.fround(rank * partialMatch);
}

const WEIGHT_D = Math.fround(0.1);
/** A position's weight (D, C, B, A: 0 … 3) in `tenths` (textScore); A counts apart. */
const TENTHS = [1, 2, 4, 0];
/** A holder entry keeps a lexeme's positions in one row as (A positions) << 16 | tenths. */
const TENTHS_BITS = 0xffff;

/**
 * The weights of a lexeme's positions in a row, `count` (position, weight) pairs from `from` in
 * `terms`, as a holder entry keeps them (TENTHS_BITS). A tsvector holds at most 256 positions a
 * lexeme, so neither part can outgrow its 16 bits.
 */
function packedWeights(terms: Int32Array, from: number, count: number): number {
  let tenths = 0;
  let a = 0;
  for (let at = from; at < from + 2 * count; at += 2) {
    const weight = terms[at + 1]!;
    if (weight === 3) a++;
    else tenths += TENTHS[weight]!;
  }
  return (a << 16) | tenths;
}

/**
 * One collection's documents in one project. Memory is the constraint here (every lexeme of every
 * row of an embedded deployment, hundreds of thousands of rows, stays in the process), so a
 * document is a slot number, and what it holds is packed into one Int32Array: per lexeme its
 * number written as ~number (negative, so that no count, position or weight is ever taken for it),
 * its count of positions, then (position, weight) pairs. A lexeme's holders are a growable list of
 * (slot, the slot's generation, the weights of the lexeme's positions there): a search finds its
 * candidates and their scores from these lists alone, without reading any row's terms. A document
 * removed moves its slot to the next generation, which leaves its entries stale; a list is
 * compacted once half of it is stale.
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
  readonly returned: (string | undefined)[] = [];
  readonly terms: (Int32Array | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  readonly holders = new Map<number, Holders>();
  /** Each slot's generation: a holder entry of an older one is stale. */
  private generations = new Int32Array(0);
  /** Each slot's id as a number (idNumber), NaN for an id that is not one. */
  numbers = new Float64Array(0);
  /** A search's mark per slot (its search number), and the slot's place among that search's candidates. */
  private marks = new Int32Array(0);
  private candidateOf = new Int32Array(0);
  private searches = 0;

  /** The slot holding row `id`, if this partition holds it. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /** Adds a document; ProjectText has removed any earlier version of it first, from whichever partition held it. */
  upsert(document: TextDocument, lexemeId: (lexeme: string) => number): void {
    const slot = this.freeSlots.pop() ?? this.ids.length;
    if (slot >= this.generations.length) {
      const size = Math.max(16, 2 * this.generations.length);
      this.generations = grown(this.generations, size);
      this.numbers = grown(this.numbers, size);
    }
    const generation = this.generations[slot]!;
    const terms = packTsvector(document.searchText, lexemeId);
    for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
      const lexeme = terms[at]!;
      terms[at] = ~lexeme;
      let holders = this.holders.get(lexeme);
      if (!holders) {
        holders = new Holders();
        this.holders.set(lexeme, holders);
      }
      holders.add(slot, generation, packedWeights(terms, at + 2, terms[at + 1]!));
    }
    this.slotOf.set(document.id, slot);
    this.ids[slot] = document.id;
    this.numbers[slot] = idNumber(document.id);
    this.payloads[slot] = document.payload;
    this.returned[slot] = document.returned;
    this.terms[slot] = terms;
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const terms = this.terms[slot]!;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.payloads[slot] = undefined;
    this.returned[slot] = undefined;
    this.terms[slot] = undefined;
    this.generations[slot] = (this.generations[slot]! + 1) | 0;
    this.freeSlots.push(slot);
    for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
      const lexeme = ~terms[at]!;
      const holders = this.holders.get(lexeme)!;
      if (holders.markStale() && holders.compact((held, generation) => this.generations[held] === generation) === 0) this.holders.delete(lexeme);
    }
  }

  /**
   * Adds to `found` each live slot holding any of the lexemes, once, with how many of them it
   * holds and their positions' weights (see textScore), read from the holder lists alone. Reading
   * each candidate's terms instead (a project-wide question over 100k agent playbooks has thousands
   * of candidates) was most of a search's time, waiting for memory.
   */
  candidates(lexemes: readonly number[], found: Candidates): void {
    if (this.marks.length < this.ids.length) {
      const size = Math.max(this.ids.length, 2 * this.marks.length);
      this.marks = new Int32Array(size);
      this.candidateOf = new Int32Array(size);
    }
    if (this.searches === 0x7fffffff) {
      this.marks.fill(0);
      this.searches = 0;
    }
    const mark = ++this.searches;
    for (const lexeme of lexemes) {
      const holders = this.holders.get(lexeme);
      if (!holders) continue;
      const { entries } = holders;
      for (let i = 0; i < 3 * holders.length; i += 3) {
        const slot = entries[i]!;
        if (this.generations[slot] !== entries[i + 1]) continue;
        let candidate: number;
        if (this.marks[slot] === mark) candidate = this.candidateOf[slot]!;
        else {
          this.marks[slot] = mark;
          candidate = found.add(this, slot);
          this.candidateOf[slot] = candidate;
        }
        const weights = entries[i + 2]!;
        found.held[candidate]!++;
        found.tenths[candidate]! += weights & TENTHS_BITS;
        found.a[candidate]! += weights >>> 16;
      }
    }
  }
}

/** A search's candidates over the partitions it reads (see TextPartition.candidates), kept for the next search. */
class Candidates {
  count = 0;
  partitions: TextPartition[] = [];
  slots = new Int32Array(1024);
  held = new Int32Array(1024);
  tenths = new Int32Array(1024);
  a = new Int32Array(1024);
  scores = new Float64Array(1024);
  /** Room for a selection's copy (kthLargest) and for the tied rows' ids (firstById), reused rather than made per search. */
  private readonly rooms = [new Float64Array(1024), new Float64Array(1024)];

  reset(): void {
    this.count = 0;
    this.partitions.length = 0;
  }

  /** `length` values of room `which`: the same memory each search, grown as needed. */
  room(which: 0 | 1, length: number): Float64Array {
    if (this.rooms[which]!.length < length) this.rooms[which] = new Float64Array(Math.max(length, 2 * this.rooms[which]!.length));
    return this.rooms[which]!;
  }

  add(partition: TextPartition, slot: number): number {
    if (this.count === this.slots.length) {
      const size = 2 * this.slots.length;
      this.slots = grown(this.slots, size);
      this.held = grown(this.held, size);
      this.tenths = grown(this.tenths, size);
      this.a = grown(this.a, size);
      this.scores = new Float64Array(size);
    }
    const candidate = this.count++;
    this.partitions[candidate] = partition;
    this.slots[candidate] = slot;
    this.held[candidate] = 0;
    this.tenths[candidate] = 0;
    this.a[candidate] = 0;
    return candidate;
  }
}

/** `array`'s values at the start of a new array of `length`. */
function grown<T extends Int32Array | Float64Array>(array: T, length: number): T {
  const larger = new (array.constructor as new (length: number) => T)(length);
  larger.set(array);
  return larger;
}

/** The (slot, generation, weights) entries holding one lexeme (see TextPartition), some possibly stale. */
class Holders {
  entries = new Int32Array(12);
  length = 0;
  private stale = 0;

  add(slot: number, generation: number, weights: number): void {
    if (3 * this.length === this.entries.length) this.entries = grown(this.entries, 2 * this.entries.length);
    this.entries[3 * this.length] = slot;
    this.entries[3 * this.length + 1] = generation;
    this.entries[3 * this.length + 2] = weights;
    this.length++;
  }

  /** Counts one more stale entry; whether half of the list is now stale. */
  markStale(): boolean {
    this.stale++;
    return 2 * this.stale >= this.length;
  }

  /** Keeps the entries whose slot is still of their generation; how many are left. */
  compact(live: (slot: number, generation: number) => boolean): number {
    let n = 0;
    for (let i = 0; i < 3 * this.length; i += 3) {
      if (!live(this.entries[i]!, this.entries[i + 1]!)) continue;
      this.entries.copyWithin(n, i, i + 3);
      n += 3;
    }
    this.entries = this.entries.slice(0, Math.max(12, n));
    this.length = n / 3;
    this.stale = 0;
    return this.length;
  }
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

  /** The partition holding row `id`, if any. */
  holding(id: string): TextPartition | undefined {
    return this.partitionOfId.get(id);
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
 * row's positions of a query lexeme of that position's weight, s, then s / (s + 1) as float4: each
 * such position is a cover of its own (textScore). It keeps each row as a search returns it too, so
 * that the rows a search found are answered without a statement (returnedRows). What it holds comes
 * from the record (ChangeLogFollower in packages/core reads the rows and follows their changes).
 */
export class TextIndex {
  private readonly partitions = new Map<string, ProjectText>();
  /** A search's candidates (searches run one at a time: each is synchronous). */
  private readonly found = new Candidates();
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

  /**
   * A table's common lexemes as a set, by the list a search is given: the same list serves every
   * search until it is read again (CommonLexemes in packages/core), dozens of lexemes a table.
   */
  private readonly commonSets = new WeakMap<readonly string[], ReadonlySet<string>>();

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

  /** The payload it holds for a row, if any. */
  payloadOf(collection: Collection, ref: PointRef): Record<string, PayloadValue> | undefined {
    const partition = this.partitionOf(collection, ref.scope, false)?.holding(ref.id);
    const slot = partition?.slot(ref.id);
    return slot === undefined ? undefined : partition!.payloads[slot];
  }

  /**
   * The rows passing the filter that hold a distinctive word of the query, with their text scores:
   * every one, or with `best` the best `best` of them, ranked as fusion ranks them (a tie by id,
   * int8 ids by number; every row tied with the last when ids are not numbers). Distinctive: not
   * among the table's common lexemes, unless every word of the query is.
   *
   * Candidates and their scores come from the holder lists (see TextPartition); a row itself is
   * read only for its filter, and only if it scores among the best. A project-wide question over
   * 100k agent playbooks matches thousands of rows, and reading each row's terms was most of a
   * search's time (3.0 ms p50 over bench/unified-search's questions, 2,600 matches).
   */
  search(collection: Collection, query: TextQuery): TextRanking {
    if (!this.holds(collection)) throw new Error(`the in-process text index does not hold ${collection}`);
    const project = this.partitionOf(collection, query.filter.scope, false);
    const words = [...new Set(query.words)];
    const common = this.commonSet(query.common);
    const distinctive = words.some((word) => !common.has(word)) ? words.filter((word) => !common.has(word)) : words;
    const lexemes = distinctive.flatMap((word) => {
      const id = this.lexemeIds.get(word);
      return id === undefined ? [] : [id];
    });
    const passes = payloadFilter(query.filter.must);
    // A row's partition is its user's (payload user_id), so the filter's user condition holds of it too.
    const scoreOfRow = (id: string): number | null => {
      const partition = project?.holding(id);
      const slot = partition?.slot(id);
      if (slot === undefined || !passes(partition!.payloads[slot]!)) return null;
      return this.scoreOfTerms(partition!.terms[slot]!, lexemes, distinctive.length);
    };
    if (!project || lexemes.length === 0) return { hits: [], scoreOf: () => null };

    const found = this.found;
    found.reset();
    for (const partition of project.partitionsFor(query.filter)) partition.candidates(lexemes, found);
    const { count, held, tenths, a, scores, partitions, slots } = found;
    for (let candidate = 0; candidate < count; candidate++) {
      scores[candidate] = textScore(tenths[candidate]!, a[candidate]!, held[candidate] === distinctive.length, this.partialMatch);
    }
    const passing = (candidate: number) => passes(partitions[candidate]!.payloads[slots[candidate]!]!);
    // The lowest score among the best `best` rows that pass the filter.
    let cut = Number.NEGATIVE_INFINITY;
    if (query.best !== undefined) {
      for (let wanted = Math.max(1, query.best); wanted < count; wanted *= 4) {
        const least = kthLargest(scores, count, wanted, found.room(0, count));
        let kept = 0;
        for (let candidate = 0; candidate < count && kept < query.best; candidate++) if (scores[candidate]! >= least && passing(candidate)) kept++;
        if (kept >= query.best) {
          cut = least;
          break;
        }
      }
    }
    const hits: TextHit[] = [];
    const hit = (candidate: number) => hits.push({ id: partitions[candidate]!.ids[slots[candidate]!]!, textScore: scores[candidate]! });
    const tied: number[] = [];
    for (let candidate = 0; candidate < count; candidate++) {
      if (scores[candidate]! > cut) {
        if (passing(candidate)) hit(candidate);
      } else if (scores[candidate] === cut) tied.push(candidate);
    }
    // Rows scoring as the last of the best: only the first of them by id can be among the best.
    if (query.best !== undefined) for (const candidate of this.firstById(tied, query.best - hits.length, passing)) hit(candidate);
    // Every matching row among the hits (one user's rows, mostly): a row's score is its hit's, or none.
    let scoreOfHit: Map<string, number> | undefined;
    const scoreOf = (id: string): number | null => {
      if (!scoreOfHit) {
        scoreOfHit = new Map();
        for (const found of hits) scoreOfHit.set(found.id, found.textScore);
      }
      return scoreOfHit.get(id) ?? (cut === Number.NEGATIVE_INFINITY ? null : scoreOfRow(id));
    };
    return { hits, scoreOf };
  }

  /**
   * Of these candidates, which all score the same, the first `wanted` that pass the filter in the
   * order of their ids, as fusion (packages/core, ranked-rows.ts) and the statement break a tie:
   * ids that are numbers (int8) by number. A common word holds thousands of rows at one score, and
   * reading each of them for its filter took a millisecond or more. Every one that passes when an
   * id is not a number.
   */
  private firstById(tied: readonly number[], wanted: number, passing: (candidate: number) => boolean): number[] {
    if (wanted <= 0 || tied.length === 0) return [];
    const { partitions, slots } = this.found;
    // Negated, the largest are the first by id.
    const numbers = this.found.room(1, tied.length);
    for (let i = 0; i < tied.length; i++) {
      const candidate = tied[i]!;
      numbers[i] = -partitions[candidate]!.numbers[slots[candidate]!]!;
      if (Number.isNaN(numbers[i])) return tied.filter(passing);
    }
    for (let taken = wanted; taken < tied.length; taken *= 4) {
      const last = kthLargest(numbers, tied.length, taken, this.found.room(0, tied.length));
      const first = tied.filter((_, i) => numbers[i]! >= last);
      const kept = first.filter(passing);
      if (kept.length >= wanted) return kept;
    }
    return tied.filter(passing);
  }

  /**
   * The rows of `ids` as a search returns them, in the order asked; null when it no longer holds one
   * of them or one no longer passes the filter (the index took in a change since the search that
   * found them): the database answers then. Each row is parsed anew, so no caller shares another's.
   */
  returnedRows(collection: Collection, filter: VectorFilter, ids: readonly string[]): Record<string, unknown>[] | null {
    const project = this.partitionOf(collection, filter.scope, false);
    const passes = payloadFilter(filter.must);
    const rows: Record<string, unknown>[] = [];
    for (const id of ids) {
      const partition = project?.holding(id);
      const slot = partition?.slot(id);
      if (slot === undefined || !passes(partition!.payloads[slot]!)) return null;
      rows.push(JSON.parse(partition!.returned[slot]!));
    }
    return rows;
  }

  /** The text score of a row of these packed terms for the query's `lexemes` (textScore), or null when it holds none. */
  private scoreOfTerms(terms: Int32Array, lexemes: readonly number[], distinctive: number): number | null {
    let held = 0;
    let tenths = 0;
    let a = 0;
    for (const lexeme of lexemes) {
      for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
        if (terms[at] !== ~lexeme) continue;
        const weights = packedWeights(terms, at + 2, terms[at + 1]!);
        held++;
        tenths += weights & TENTHS_BITS;
        a += weights >>> 16;
        break;
      }
    }
    return held === 0 ? null : textScore(tenths, a, held === distinctive, this.partialMatch);
  }

  private commonSet(common: readonly string[]): ReadonlySet<string> {
    let set = this.commonSets.get(common);
    if (!set) {
      set = new Set(common);
      this.commonSets.set(common, set);
    }
    return set;
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

/** An id of up to 15 digits as its number (exactly, in a double), else NaN: int8 ids sort by it. */
function idNumber(id: string): number {
  return /^\d{1,15}$/.test(id) ? Number(id) : Number.NaN;
}

/** The `k`-th largest (1-based) of `values[0 .. count)`, found by selection in `room` (at least `count` long). */
function kthLargest(values: Float64Array, count: number, k: number, room: Float64Array): number {
  const copy = room;
  for (let i = 0; i < count; i++) copy[i] = values[i]!;
  let low = 0;
  let high = count - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = copy[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (copy[i]! > pivot) i++;
      while (copy[j]! < pivot) j--;
      if (i <= j) {
        const swap = copy[i]!;
        copy[i] = copy[j]!;
        copy[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else return copy[target]!;
  }
  return copy[target]!;
}
