import { createHash } from "node:crypto";
import { AppError, MAX_MAPPING_RULES, type MappingDefinition, type MappingDocument, type PreviewResult } from "@als/contract";
import { dataSourceSamples, dataSources, type SampleRecord, type Scope } from "@als/db";
import { MAX_SELECTED_TEXT_CHARS, MAX_TEXT_BLOCKS, mapRecord, upgradeTextPaths } from "@als/sources";
import canonicalize from "canonicalize";
import type { CoreDeps } from "../deps.ts";
import { FIELD_GUIDANCE } from "./setup-context.ts";
import { staleDraftRevision } from "./stale-revision.ts";
import { getMappingDocument, liveStream, saveMappingDraft } from "./stream-drafts.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Digest of the engine's rules: a preview made under other limits or transforms is other evidence. */
const POLICY_DIGEST = sha256(
  canonicalize({ engine: 1, MAX_TEXT_BLOCKS, MAX_SELECTED_TEXT_CHARS, MAX_MAPPING_RULES, transforms: ["first_text_block", "text_blocks"] })!,
);

/** The sample's records as mapping evidence: complete, not expired, and of this stream. */
export async function completeSampleOf(deps: CoreDeps, scope: Scope, streamId: string, sampleId: string): Promise<SampleRecord> {
  const sample = await dataSourceSamples.findSample(deps.db, scope, sampleId);
  if (!sample || sample.stream_id !== streamId) throw AppError.notFound(`sample '${sampleId}' of stream '${streamId}'`);
  if (deps.now() >= sample.expires_at)
    throw AppError.validation([{ loc: ["body", "sample_id"], msg: "the sample expired: take a fresh one", type: "sample_expired" }]);
  if (sample.status !== "complete") {
    throw AppError.validation([
      { loc: ["body", "sample_id"], msg: `the sample is ${sample.status}${sample.code ? ` (${sample.code})` : ""}: take a fresh one`, type: "sample_unusable" },
    ]);
  }
  return sample;
}

export const sampleDigestOf = (sample: SampleRecord) => sha256(canonicalize({ sample_id: sample.sample_id, records: sample.records })!);

/** The saved draft at `expectedRevision`: 409 when the draft moved, 422 when there is none to use. */
async function savedDraftAt(deps: CoreDeps, scope: Scope, streamId: string, expectedRevision: number) {
  const document = await getMappingDocument(deps, scope, streamId);
  if (document.revision !== expectedRevision) throw staleDraftRevision(streamId, document.revision, expectedRevision);
  return document;
}

/**
 * Rule 8: what a definition (the proposal sent, else the saved draft) makes of a sample. Counts
 * apply to the sample only; nothing is published.
 */
export async function previewMapping(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; sample_id: string; expected_revision: number; definition?: MappingDefinition | undefined },
): Promise<PreviewResult> {
  await liveStream(deps, scope, input.stream_id);
  const document = await savedDraftAt(deps, scope, input.stream_id, input.expected_revision);
  const definition = input.definition ?? document.draft;
  if (!definition) {
    throw AppError.validation([{ loc: ["body", "definition"], msg: "the stream has no saved draft: send a definition to preview", type: "missing" }]);
  }
  const sample = await completeSampleOf(deps, scope, input.stream_id, input.sample_id);
  return preview(definition, sample, input.definition ? null : document.revision);
}

function preview(definition: MappingDefinition, sample: SampleRecord, mappingRevision: number | null): PreviewResult {
  const coverage: PreviewResult["rule_coverage"] = Object.fromEntries(definition.rules.map((rule) => [rule.name, { matched: 0, ready: 0, held: 0 }]));
  const records = (sample.records as { trace_id: string; trace: unknown }[]).map((record) => {
    const mapped = mapRecord(definition, record.trace);
    const rules = mapped.status === "ready" ? [mapped.rule] : mapped.status === "held" ? mapped.rules : [];
    for (const rule of rules) {
      coverage[rule]!.matched++;
      if (mapped.status === "ready") coverage[rule]!.ready++;
      else coverage[rule]!.held++;
    }
    const { references: _references, ...interaction } = mapped.status === "ready" ? mapped.interaction : { references: null };
    return {
      trace_id: record.trace_id,
      status: mapped.status,
      rules,
      reasons: mapped.status === "held" ? mapped.reasons : [],
      interaction: mapped.status === "ready" ? (interaction as NonNullable<PreviewResult["records"][number]["interaction"]>) : null,
    };
  });
  const count = (status: string) => records.filter((record) => record.status === status).length;
  const ready = records.filter((record) => record.status === "ready");
  const blockers: string[] = [];
  if (ready.length === 0) blockers.push("no_ready_records: validation needs at least one ready record");
  const overlapping = records.filter((record) => record.rules.length > 1);
  if (overlapping.length > 0)
    blockers.push(
      `overlapping_rules: ${overlapping.length} records match more than one rule (${[...new Set(overlapping.flatMap((r) => r.rules))].join(", ")})`,
    );
  return {
    records,
    ready: ready.length,
    held: count("held"),
    excluded: count("excluded"),
    sourceRecords: records.length,
    messages: ready.reduce((sum, record) => sum + (record.interaction!.input === null ? 0 : 1) + (record.interaction!.output === null ? 0 : 1), 0),
    sample_digest: sampleDigestOf(sample),
    mapping_revision: mappingRevision,
    mapping_digest: sha256(canonicalize(definition)!),
    policy_digest: POLICY_DIGEST,
    blockers,
    rule_coverage: coverage,
    field_guidance: FIELD_GUIDANCE,
    advisory: true,
  };
}

/**
 * Rule 9: validates the saved draft (never a definition sent with the request) against a sample
 * named by its digest: it needs a ready record and no record matching two rules; other records may
 * stay held. Sets validated_revision to the draft's revision.
 */
export async function validateMapping(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; sample_id: string; expected_revision: number; sample_digest: string },
): Promise<MappingDocument> {
  await liveStream(deps, scope, input.stream_id);
  const document = await savedDraftAt(deps, scope, input.stream_id, input.expected_revision);
  const sample = await completeSampleOf(deps, scope, input.stream_id, input.sample_id);
  if (sampleDigestOf(sample) !== input.sample_digest) {
    throw new AppError("conflict", "the sample's evidence is not the one the digest names: preview it again and send its sample_digest");
  }
  const result = preview(document.draft!, sample, document.revision);
  if (result.blockers.length > 0) {
    throw AppError.validation(result.blockers.map((blocker) => ({ loc: ["body", "sample_id"], msg: blocker, type: blocker.split(":")[0]! })));
  }
  const validated = await dataSources.markMappingValidated(deps.db, scope, input.stream_id, document.revision);
  if (!validated) {
    const current = await getMappingDocument(deps, scope, input.stream_id);
    throw staleDraftRevision(input.stream_id, current.revision, input.expected_revision);
  }
  return getMappingDocument(deps, scope, input.stream_id);
}

/** Rule 10 on the saved draft: indexed text pointers become their content arrays; unchanged, nothing is saved. */
export async function upgradeMappingText(deps: CoreDeps, scope: Scope, input: { stream_id: string; expected_revision: number }): Promise<MappingDocument> {
  await liveStream(deps, scope, input.stream_id);
  const document = await savedDraftAt(deps, scope, input.stream_id, input.expected_revision);
  const upgraded = upgradeTextPaths(document.draft!);
  if (upgraded === null) return document;
  return saveMappingDraft(deps, scope, { stream_id: input.stream_id, expected_revision: input.expected_revision, definition: upgraded });
}
