import { type Llm, type RenderedPrompt, renderPrompt } from "@als/ai";
import { documentExpansion, type ExpandedTable, learning, type PendingExpansion, type Scope } from "@als/db";
import { z } from "zod";
import { readProjectConfigNow } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { inputBudgetOf } from "../learning/input-budget.ts";

/** Rows per LLM call: learnings are short, so one call expands many. */
export const EXPANSION_BATCH = 32;
/** Terms per document the prompt asks for, and the most stored. */
const MAX_TERMS = 15;
/** The longest a step waits for the LLM, retries included: within EXPANSION_LEASE_SECONDS. */
const LLM_CALL_MS = 50_000;
/** A step's hold on its project (see startDocumentExpansionLoop): a step outlives it only when its process died. */
export const EXPANSION_LEASE_SECONDS = 60;
/** A longer learning is expanded from its beginning: its terms are about what it is, not every detail. */
const MAX_DOCUMENT_CHARS = 1_000;

const Expansions = z.object({
  expansions: z.array(z.object({ document: z.number().int(), terms: z.array(z.string()) })),
});

const KIND_NAMES: Record<ExpandedTable, string> = {
  profiles: "user profile facts",
  user_playbooks: "per-user playbooks (when, what to do)",
  agent_playbooks: "agent playbooks (when, what to do)",
};

export interface ExpansionProgress {
  /** Rows given terms by this step. */
  expanded: number;
  /** Rows of the project still without terms for their current text after it. */
  remaining: number;
}

/** The text a row's terms are written for, as the prompt lists it. */
function documentText(row: PendingExpansion): string {
  const text = row.trigger === null ? row.content : `When: ${row.trigger}\nDo: ${row.content}`;
  return text.length > MAX_DOCUMENT_CHARS ? `${text.slice(0, MAX_DOCUMENT_CHARS)} […]` : text;
}

/** The terms as stored: trimmed, lower-cased, de-duplicated, at most MAX_TERMS, one per line. */
function storedTerms(terms: readonly string[]): string {
  const kept = [...new Set(terms.map((term) => term.trim().toLowerCase()).filter((term) => term !== ""))];
  return kept.slice(0, MAX_TERMS).join("\n");
}

/**
 * One idempotent step of document expansion for a project that enables it: the next batch of rows
 * (of the first table that has any) whose terms are missing or were written for an earlier text
 * goes to the LLM in one call, and each row's terms are stored under the digest of the text they
 * were written for (packages/db storeExpansions), so an edit in the meantime leaves the row
 * pending rather than labelled with terms of its old text. A row the model gave no terms is stored
 * with none, so it is not asked for again. The rows are the cursor: a step interrupted before its
 * commit is simply repeated. Tokens are recorded under the stage `document_expansion`.
 */
export async function expandDocumentsStep(deps: CoreDeps & { llm: Llm }, scope: Scope, batchSize = EXPANSION_BATCH): Promise<ExpansionProgress> {
  const config = await readProjectConfigNow(deps, scope);
  if (!config.enable_document_expansion) return { expanded: 0, remaining: 0 };
  let expanded = 0;
  for (const table of Object.keys(documentExpansion.EXPANDED_TABLES) as ExpandedTable[]) {
    const rows = await documentExpansion.pendingExpansions(deps.db, scope, table, batchSize);
    if (rows.length > 0) {
      expanded = await expandBatch(deps, scope, table, fitBatch(deps.llm, inputBudgetOf(deps.llm, config.learning_input_budget_tokens), table, rows));
      break;
    }
  }
  return { expanded, remaining: await documentExpansion.countPendingExpansions(deps.db, scope) };
}

/** One LLM call for the batch, its terms stored with the tokens spent; returns how many rows took them. */
async function expandBatch(deps: CoreDeps & { llm: Llm }, scope: Scope, table: ExpandedTable, batch: FittedBatch): Promise<number> {
  const { rows, prompt } = batch;
  const reply = await deps.llm.generateObject({
    system: prompt.system,
    user: prompt.user,
    schema: Expansions,
    schemaName: "document_expansion",
    signal: AbortSignal.timeout(LLM_CALL_MS),
  });
  const termsOf = new Map(reply.value.expansions.map((entry) => [entry.document, entry.terms]));
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const stored = await documentExpansion.storeExpansions(
      tx,
      scope,
      table,
      rows.map((row, index) => ({ id: row.id, digest: row.digest, terms: storedTerms(termsOf.get(index + 1) ?? []) })),
    );
    await learning.recordLlmUsage(tx, scope, [{ ...reply.usage, stage: "document_expansion", userId: null, requestId: null }], now);
    return stored;
  });
}

function listed(rows: readonly PendingExpansion[]): string {
  return rows.map((row, index) => `${index + 1}. ${documentText(row).replaceAll("\n", " / ")}`).join("\n");
}

interface FittedBatch {
  rows: PendingExpansion[];
  prompt: RenderedPrompt;
}

/** The longest prefix of the batch whose prompt fits the project's input budget (at least one row: each is capped), with that prompt. */
function fitBatch(llm: Llm, budget: number, table: ExpandedTable, rows: readonly PendingExpansion[]): FittedBatch {
  const promptOf = (batch: readonly PendingExpansion[]) =>
    renderPrompt("document-expansion", { kind: KIND_NAMES[table], max_terms: String(MAX_TERMS), documents: listed(batch) });
  let count = rows.length;
  for (;;) {
    const prompt = promptOf(rows.slice(0, count));
    if (count === 1 || llm.inputTokens.count(prompt.system) + llm.inputTokens.count(prompt.user) <= budget) return { rows: rows.slice(0, count), prompt };
    count = Math.ceil(count / 2);
  }
}
