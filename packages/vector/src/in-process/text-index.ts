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
 * document is a slot number, and what it holds is packed into one Int32Array: per lexeme its
 * number written as ~number (negative, so that no count, position or weight is ever taken for it),
 * its count of positions, then (position, weight) pairs. A lexeme's holders are a growable list of
 * (slot, where the lexeme's entry starts in the slot's terms); a document removed leaves its pairs
 * in those lists (stale: a search checks the slot's terms still hold the lexeme there), and a list
 * is compacted once half of it is stale.
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
  /** A search's mark per slot (its search number), and the slot's place among that search's candidates. */
  private marks = new Int32Array(0);
  private candidateOf = new Int32Array(0);
  private searches = 0;

  /** Adds a document; ProjectText has removed any earlier version of it first, from whichever partition held it. */
  upsert(document: TextDocument, lexemeId: (lexeme: string) => number): void {
    const slot = this.freeSlots.pop() ?? this.ids.length;
    const terms = packTsvector(document.searchText, lexemeId);
    for (let at = 0; at < terms.length; at += 2 + 2 * terms[at + 1]!) {
      const lexeme = terms[at]!;
      terms[at] = ~lexeme;
      let holders = this.holders.get(lexeme);
      if (!holders) {
        holders = new Holders();
        this.holders.set(lexeme, holders);
      }
      holders.add(slot, at);
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
      const lexeme = ~terms[at]!;
      const holders = this.holders.get(lexeme)!;
      if (holders.markStale() && holders.compact((held, heldAt) => this.terms[held]?.[heldAt] === ~lexeme) === 0) this.holders.delete(lexeme);
    }
  }

  /**
   * Each live slot holding any of the lexemes, once, in the order first found, with where each
   * lexeme it holds starts in its terms, in the lexemes' order (`scratch`: the k-th of candidate
   * c's `held[c]` lexemes at `entries[c * lexemes.length + k]`). Only those entries are read, not
   * every candidate's whole terms: a project-wide question over 100k agent playbooks (6,000
   * candidates) took 2.3 ms reading each candidate's terms through to find its lexemes, most of it
   * waiting for memory, and 1.1 ms this way.
   */
  candidates(lexemes: readonly number[], scratch: CandidateScratch): number[] {
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
    const slots: number[] = [];
    const width = lexemes.length;
    for (let place = 0; place < width; place++) {
      const lexeme = lexemes[place]!;
      const holders = this.holders.get(lexeme);
      if (!holders) continue;
      for (let i = 0; i < holders.length; i++) {
        const slot = holders.pairs[2 * i]!;
        const at = holders.pairs[2 * i + 1]!;
        if (this.terms[slot]?.[at] !== ~lexeme) continue;
        let candidate: number;
        if (this.marks[slot] === mark) {
          candidate = this.candidateOf[slot]!;
          // The same slot listed twice for one lexeme (a pair of an earlier document left in the list).
          if (scratch.lastPlace[candidate] === place) continue;
        } else {
          this.marks[slot] = mark;
          candidate = slots.length;
          this.candidateOf[slot] = candidate;
          slots.push(slot);
          scratch.ensure(slots.length, width);
          scratch.held[candidate] = 0;
        }
        scratch.lastPlace[candidate] = place;
        scratch.entries[candidate * width + scratch.held[candidate]!] = at;
        scratch.held[candidate]!++;
      }
    }
    return slots;
  }
}

/** What a search records of each candidate (see TextPartition.candidates), kept for the next search. */
class CandidateScratch {
  held = new Int32Array(1024);
  lastPlace = new Int32Array(1024);
  entries = new Int32Array(8 * 1024);

  ensure(candidates: number, width: number): void {
    if (this.held.length < candidates) {
      this.held = grown(this.held, 2 * this.held.length);
      this.lastPlace = grown(this.lastPlace, 2 * this.lastPlace.length);
    }
    if (this.entries.length < candidates * width) this.entries = grown(this.entries, Math.max(2 * this.entries.length, candidates * width));
  }
}

function grown(array: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(length);
  larger.set(array);
  return larger;
}

/** The (slot, where the lexeme's entry starts in the slot's terms) pairs holding one lexeme, some possibly stale. */
class Holders {
  pairs = new Int32Array(8);
  length = 0;
  private stale = 0;

  add(slot: number, at: number): void {
    if (2 * this.length === this.pairs.length) this.pairs = grown(this.pairs, 2 * this.pairs.length);
    this.pairs[2 * this.length] = slot;
    this.pairs[2 * this.length + 1] = at;
    this.length++;
  }

  /** Counts one more stale entry; whether half of the list is now stale. */
  markStale(): boolean {
    this.stale++;
    return 2 * this.stale >= this.length;
  }

  /** Keeps the pairs whose slot still holds the lexeme there, one a slot; how many are left. */
  compact(holds: (slot: number, at: number) => boolean): number {
    const kept = new Map<number, number>();
    for (let i = 0; i < this.length; i++) {
      const slot = this.pairs[2 * i]!;
      const at = this.pairs[2 * i + 1]!;
      if (!kept.has(slot) && holds(slot, at)) kept.set(slot, at);
    }
    this.pairs = new Int32Array(Math.max(8, 2 * kept.size));
    let i = 0;
    for (const [slot, at] of kept) {
      this.pairs[i++] = slot;
      this.pairs[i++] = at;
    }
    this.length = kept.size;
    this.stale = 0;
    return kept.size;
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
  /** What a search records of its candidates (searches run one at a time: each is synchronous). */
  private readonly scratch = new CandidateScratch();
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
    const width = lexemes.length;
    // Where each held lexeme's (position, weight) pairs start and end in a candidate's terms.
    const starts = new Int32Array(width);
    const ends = new Int32Array(width);
    for (const partition of project.partitionsFor(query.filter)) {
      const slots = partition.candidates(lexemes, this.scratch);
      for (let candidate = 0; candidate < slots.length; candidate++) {
        const slot = slots[candidate]!;
        if (!passes(partition.payloads[slot]!)) continue;
        const terms = partition.terms[slot]!;
        const held = this.scratch.held[candidate]!;
        for (let k = 0; k < held; k++) {
          const at = this.scratch.entries[candidate * width + k]!;
          starts[k] = at + 2;
          ends[k] = at + 2 + 2 * terms[at + 1]!;
        }
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
