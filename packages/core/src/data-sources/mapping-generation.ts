import { renderPrompt } from "@als/ai";
import { AppError, MAPPING_FIELDS, MAPPING_TRANSFORMS, MappingDefinition, type MappingDocument, type MappingField } from "@als/contract";
import type { Scope } from "@als/db";
import { fieldInventory, maskExample, resolvePointer } from "@als/sources";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { completeSampleOf, sampleDigestOf } from "./mapping-review.ts";
import { SAMPLE_EXAMPLE_BYTES } from "./sample-step.ts";
import { staleDraftRevision } from "./stale-revision.ts";
import { getMappingDocument, liveStream, saveMappingDraft } from "./stream-drafts.ts";

/** Examples initialization sends to the model (rule 6). */
export const INITIALIZATION_EXAMPLES = 3;

const Pointer = z.string().nullable();
const Transform = z.enum(MAPPING_TRANSFORMS).nullable();
/** What the model answers for initialization: one rule, a pointer (or null) per field. */
const ProposedRule = z.object({
  rule_name: z.string(),
  user: Pointer,
  session: Pointer,
  input: Pointer,
  input_transform: Transform,
  output: Pointer,
  output_transform: Transform,
  version: Pointer,
  source: Pointer,
  timestamp: Pointer,
});
/** What the model answers for suggestions. */
const ProposedCandidates = z.object({
  candidates: z.array(z.object({ field: z.enum(MAPPING_FIELDS), path: z.string(), transform: Transform, reason: z.string() })),
});

function configuredModel(deps: CoreDeps) {
  if (!deps.llm) throw new AppError("llm_unavailable", "no generation model is configured: set LLM_PROVIDER (and LLM_API_KEY) to generate mappings");
  return deps.llm;
}

/**
 * Rule 6: a draft generated from up to three masked examples of a complete sample. At revision 0 a
 * draft already saved is kept as it is (the model is not asked); with the current revision it is
 * regenerated. A model that fails, or proposes a mapping the contract refuses, saves nothing.
 */
export async function initializeMapping(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; sample_id: string; expected_revision: number },
): Promise<MappingDocument> {
  await liveStream(deps, scope, input.stream_id);
  const document = await getMappingDocument(deps, scope, input.stream_id);
  if (input.expected_revision === 0 && document.revision > 0) return document;
  if (document.revision !== input.expected_revision) throw staleDraftRevision(input.stream_id, document.revision, input.expected_revision);
  const llm = configuredModel(deps);
  const sample = await completeSampleOf(deps, scope, input.stream_id, input.sample_id);
  const examples = (sample.records as { trace: unknown }[])
    .map((record) => maskExample(record.trace, SAMPLE_EXAMPLE_BYTES))
    .filter((example) => example !== null)
    .slice(0, INITIALIZATION_EXAMPLES);
  if (examples.length === 0)
    throw AppError.validation([{ loc: ["body", "sample_id"], msg: "the sample holds no example to generate from", type: "value_error" }]);
  const prompt = renderPrompt("mapping-initialization", {
    examples: examples.map((example, index) => `Example ${index + 1}:\n${JSON.stringify(example, null, 1)}`).join("\n\n"),
  });
  const { value } = await llm.generateObject({ system: prompt.system, user: prompt.user, schema: ProposedRule, schemaName: "mapping_initialization" });
  const fields = Object.fromEntries(
    (["user", "session", "input", "output", "version", "source", "timestamp"] as const).flatMap((field) => {
      const path = value[field];
      if (path === null) return [];
      const transform = field === "input" ? value.input_transform : field === "output" ? value.output_transform : null;
      return [[field, { path, ...(transform && { transform }) }]];
    }),
  );
  const proposed = MappingDefinition.safeParse({ version: 1, rules: [{ name: value.rule_name.trim() || "generated", fields }] });
  if (!proposed.success) {
    throw new AppError(
      "llm_unavailable",
      `the generation model proposed a mapping the contract refuses (${proposed.error.issues[0]?.message}); nothing was saved`,
    );
  }
  return saveMappingDraft(deps, scope, { stream_id: input.stream_id, expected_revision: input.expected_revision, definition: proposed.data });
}

/** GET .../suggestions/model: whether suggestions can run, with which model, and what leaves the service. */
export function suggestionModel(deps: CoreDeps) {
  return {
    available: deps.llm !== undefined,
    model: deps.llm?.model ?? null,
    data_sent: "field names (JSON pointers) and their JSON types from the sample; dialogue values are withheld",
    usage: {
      suggestions: "one call per request, with the inventory of at most 200 pointers",
      initialize: `one call per initialization, with up to ${INITIALIZATION_EXAMPLES} masked examples of at most ${SAMPLE_EXAMPLE_BYTES} bytes each`,
    },
  };
}

/**
 * Rule 7: suggestions from a bounded inventory of the sample's field names and types, never its
 * values. Nothing is applied: candidates are offered with the coverage measured on the sample.
 */
export async function suggestMappings(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; sample_id: string; expected_revision: number; sample_digest: string },
) {
  await liveStream(deps, scope, input.stream_id);
  const document = await getMappingDocument(deps, scope, input.stream_id);
  if (document.revision !== input.expected_revision) throw staleDraftRevision(input.stream_id, document.revision, input.expected_revision);
  const sample = await completeSampleOf(deps, scope, input.stream_id, input.sample_id);
  if (sampleDigestOf(sample) !== input.sample_digest) {
    throw new AppError("conflict", "the sample's evidence is not the one the digest names: preview it again and send its sample_digest");
  }
  const llm = configuredModel(deps);
  const traces = (sample.records as { trace: unknown }[]).map((record) => record.trace);
  const inventory = fieldInventory(traces);
  const prompt = renderPrompt("mapping-suggestions", {
    fields: MAPPING_FIELDS.join(", "),
    inventory: [...inventory].map(([pointer, type]) => `${pointer}: ${type}`).join("\n"),
  });
  const { value, usage } = await llm.generateObject({
    system: prompt.system,
    user: prompt.user,
    schema: ProposedCandidates,
    schemaName: "mapping_suggestions",
  });
  // Only pointers the inventory holds: a model's invention is not a candidate.
  const candidates = value.candidates.filter((candidate) => inventory.has(candidate.path));
  const covered = new Set<MappingField>(candidates.map((candidate) => candidate.field));
  return {
    candidates,
    missing: MAPPING_FIELDS.filter((field) => !covered.has(field)),
    revision: document.revision,
    sample_id: sample.sample_id,
    sample_digest: input.sample_digest,
    model: usage.model,
    prompt_version: prompt.id,
    measured_coverage: Object.fromEntries(
      candidates.map((candidate) => [
        `${candidate.field}:${candidate.path}`,
        traces.filter((trace) => {
          const found = resolvePointer(trace, candidate.path);
          return found !== undefined && found !== null;
        }).length / Math.max(1, traces.length),
      ]),
    ),
    automatic_application: false as const,
  };
}
