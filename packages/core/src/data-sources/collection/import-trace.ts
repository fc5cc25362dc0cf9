import { AppError, type MappingDefinition, PublishInteractionRequest, RetrievedLearning } from "@als/contract";
import {
  type CollectionRecord,
  dataSourceCollections,
  dataSourceHeld,
  dataSourceReceipts,
  ErasureInProgressError,
  type ImportPhase,
  type Scope,
} from "@als/db";
import { type MappedInteraction, mapRecord, resolvePointer, type SupportingContext } from "@als/sources";
import type { z } from "zod";
import type { CoreDeps } from "../../deps.ts";
import type { Orchestrator } from "../../durable/orchestrator.ts";
import { LeaseLost } from "../../durable/step-outcome.ts";
import { publishInteractions } from "../../interactions/publish-interactions.ts";

/** A trace record over this many bytes (as JSON) is held `oversized` rather than mapped and kept. */
export const MAX_IMPORTED_RECORD_BYTES = 1024 * 1024;
/** The source of imported requests whose mapping names none (or one the contract's pattern refuses). */
const DEFAULT_SOURCE = "data-source";
const SOURCE_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,127}$/;

/** What became of one trace; `over_budget`: not imported, the backfill's budget is spent. */
export type TraceOutcome = "imported" | "duplicates" | "held" | "excluded" | "over_budget";

/** A trace to import: the provider's id and start, and its root record (with its supporting context at `/supporting_spans` once read). */
export interface TraceToImport {
  id: string;
  started_at: number;
  record: unknown;
}

/** The collection and the lease a step imports under, and where the traces were read. */
export interface ImportRun {
  deps: CoreDeps;
  scope: Scope;
  collection: CollectionRecord;
  leaseToken: string;
  phase: ImportPhase;
  /** Users whose stream moved: learning is scheduled once per user after the page, not once per trace. */
  movedUsers: Set<string>;
}

class AlreadyImported extends Error {}
class OverBudget extends Error {}

/**
 * Imports one trace exactly once: maps it with the collection's active mapping and publishes the
 * whole interaction through publishInteractions (so learning follows), writing the deduplication
 * receipt and spending its message units in the publish's own transaction. A trace with a receipt
 * rolls back (a re-read page, a crash before the checkpoint); one that cannot be imported is held
 * with its reasons; one no rule matches is excluded. Throws LeaseLost when the collection was
 * stopped, paused or deleted meanwhile: nothing of the trace is committed then.
 */
export async function importTrace(run: ImportRun, trace: TraceToImport): Promise<TraceOutcome> {
  const { deps, scope, collection } = run;
  const now = deps.now();
  if (Buffer.byteLength(JSON.stringify(trace.record ?? null), "utf8") > MAX_IMPORTED_RECORD_BYTES) {
    return hold(run, trace, { reasons: ["oversized"], rules: [], userId: null, keepRecord: false });
  }
  const definition = collection.mapping_definition as MappingDefinition;
  const mapped = mapRecord(definition, trace.record);
  if (mapped.status === "excluded") return "excluded";
  if (mapped.status === "held")
    return hold(run, trace, { reasons: mapped.reasons, rules: mapped.rules, userId: userOfHeld(definition, mapped.rules, trace.record) });
  const request = publishRequestOf(trace, mapped.interaction);
  if (!request.success) {
    const reasons = request.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    return hold(run, trace, { reasons, rules: [mapped.rule], userId: mapped.interaction.user_id });
  }
  const units = request.data.interaction_data_list.length;
  try {
    await publishInteractions({ ...deps, orchestrator: learningCollectedBy(run, deps.orchestrator) }, scope, request.data, {
      withinCommit: async (tx, published) => {
        const admitted = await dataSourceCollections.admitImport(tx, scope, collection.stream_id, run.leaseToken, run.phase, units, now);
        if (admitted === "lease_lost") throw new LeaseLost();
        if (admitted === "over_budget") throw new OverBudget();
        const key = { provider: collection.provider, external_project_id: collection.external_project_id, external_trace_id: trace.id };
        const receipted = await dataSourceReceipts.insertReceipt(tx, scope, key, {
          stream_id: collection.stream_id,
          request_id: published.request_id,
          user_id: published.user_id,
          session_id: published.session_id,
          rule: mapped.rule,
          mapping_revision: collection.mapping_revision,
          phase: run.phase,
          message_units: units,
          imported_at: now,
        });
        if (!receipted) throw new AlreadyImported();
        // Only a retry imports a trace that is held; backfill and live pages spare the statement.
        if (run.phase === "retry") await dataSourceHeld.releaseHeld(tx, scope, collection.stream_id, trace.id);
      },
    });
    return "imported";
  } catch (error) {
    if (error instanceof AlreadyImported) return "duplicates";
    if (error instanceof OverBudget) return "over_budget";
    // The user is being erased: the trace waits as a held record (an erasure through the stream removes it).
    if (error instanceof ErasureInProgressError)
      return hold(run, trace, { reasons: ["erasure_in_progress"], rules: [mapped.rule], userId: mapped.interaction.user_id });
    if (error instanceof AppError && error.code === "validation_error") {
      return hold(run, trace, { reasons: [`publish: ${error.message}`], rules: [mapped.rule], userId: mapped.interaction.user_id });
    }
    throw error;
  }
}

/** The import's orchestrator: a moved user is noted for the run (learning is scheduled after the page); other work goes on to `orchestrator`. */
function learningCollectedBy(run: ImportRun, orchestrator: Orchestrator | undefined): Orchestrator {
  return {
    schedule: (kind, scope, id) => (kind === "learning" ? void run.movedUsers.add(id) : orchestrator?.schedule(kind, scope, id)),
  };
}

/**
 * The publish a ready record becomes: its input as the user's turn, its output as the agent's, one
 * request per trace. The agent's turn (the last one) carries the trace's tool calls and retrievals as
 * `tools_used`, and the learnings the `references` pointer names as `retrieved_learnings`.
 */
function publishRequestOf(trace: TraceToImport, interaction: MappedInteraction) {
  const createdAt = interaction.created_at ?? trace.started_at;
  const turns: Record<string, unknown>[] = [
    ...(interaction.input === null ? [] : [{ role: "User", content: interaction.input, created_at: createdAt }]),
    ...(interaction.output === null ? [] : [{ role: "Agent", content: interaction.output, created_at: createdAt }]),
  ];
  const tools = supportingOf(trace.record)?.tools ?? [];
  const learnings = retrievedLearningsOf(interaction.references);
  if (turns.length > 0 && (tools.length > 0 || learnings.length > 0)) {
    turns[turns.length - 1] = { ...turns.at(-1), tools_used: tools, retrieved_learnings: learnings };
  }
  return PublishInteractionRequest.safeParse({
    user_id: interaction.user_id,
    session_id: interaction.session_id ?? `trace:${trace.id}`,
    interaction_data_list: turns,
    source: interaction.source !== null && SOURCE_PATTERN.test(interaction.source) ? interaction.source : DEFAULT_SOURCE,
    ...(interaction.agent_version !== null && { agent_version: interaction.agent_version }),
  });
}

/** The supporting context a trace's record carries, when its spans were read. */
function supportingOf(record: unknown): SupportingContext | null {
  const context = record !== null && typeof record === "object" ? (record as { supporting_spans?: unknown }).supporting_spans : undefined;
  return context !== null && typeof context === "object" && Array.isArray((context as SupportingContext).tools) ? (context as SupportingContext) : null;
}

/** The entries of a `references` value that are learnings of the service (kind and id); anything else is not one. */
function retrievedLearningsOf(references: unknown): z.output<typeof RetrievedLearning>[] {
  if (!Array.isArray(references)) return [];
  return references.flatMap((entry) => {
    const parsed = RetrievedLearning.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The user a held record names, when its one matching rule can read it: an erasure of that user removes the record. */
function userOfHeld(definition: MappingDefinition, rules: string[], record: unknown): string | null {
  const rule = rules.length === 1 ? definition.rules.find((candidate) => candidate.name === rules[0]) : undefined;
  const value = rule?.fields.user ? resolvePointer(record, rule.fields.user.path) : undefined;
  return typeof value === "string" && value.trim() !== "" ? value : typeof value === "number" ? String(value) : null;
}

async function hold(
  run: ImportRun,
  trace: TraceToImport,
  held: { reasons: string[]; rules: string[]; userId: string | null; keepRecord?: boolean },
): Promise<TraceOutcome> {
  await dataSourceHeld.holdRecord(run.deps.db, run.scope, run.collection.stream_id, {
    external_trace_id: trace.id,
    started_at: trace.started_at,
    phase: run.phase,
    reasons: held.reasons,
    rules: held.rules,
    user_id: held.userId,
    record: held.keepRecord === false ? null : trace.record,
    held_at: run.deps.now(),
  });
  return "held";
}
