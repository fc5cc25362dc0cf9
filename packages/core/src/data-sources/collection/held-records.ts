import { createHash } from "node:crypto";
import { AppError, HELD_PAGE_SIZE, type HeldPage, type MappingDefinition, type RetryPreview } from "@als/contract";
import { type CollectionRecord, dataSourceCollections, dataSourceHeld, type HeldRecord, type Scope } from "@als/db";
import canonicalize from "canonicalize";
import type { CoreDeps } from "../../deps.ts";
import type { RecordAnswer } from "../../idempotency/write-once.ts";
import { mapRecord } from "../mapping/apply-mapping.ts";
import { staleLifecycleRevision } from "../stale-revision.ts";
import { activeCollection } from "./collection-status.ts";

/** A page of the stream's held records, oldest first; next_cursor names the last one shown. */
export async function listHeldRecords(deps: CoreDeps, scope: Scope, input: { stream_id: string; after?: string | undefined }): Promise<HeldPage> {
  await activeCollection(deps, scope, input.stream_id);
  const after = input.after === undefined ? null : parseCursor(input.after);
  const rows = await dataSourceHeld.pageHeld(deps.db, scope, input.stream_id, after, HELD_PAGE_SIZE + 1);
  const page = rows.slice(0, HELD_PAGE_SIZE);
  const last = page.at(-1);
  return {
    records: page.map((record) => ({
      trace_id: record.external_trace_id,
      started_at: record.started_at,
      phase: record.phase,
      reasons: record.reasons,
      rules: record.rules,
      status: record.status,
      held_at: record.held_at,
    })),
    next_cursor: rows.length > HELD_PAGE_SIZE && last ? Buffer.from(JSON.stringify([last.held_at, last.external_trace_id])).toString("base64url") : null,
  };
}

function parseCursor(cursor: string): { held_at: number; external_trace_id: string } {
  try {
    const [heldAt, traceId] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown];
    if (Number.isSafeInteger(heldAt) && typeof traceId === "string") return { held_at: heldAt as number, external_trace_id: traceId };
  } catch {}
  throw AppError.validation([{ loc: ["query", "after"], msg: "is not a next_cursor this endpoint returned", type: "value_error" }]);
}

interface RetryInput {
  stream_id: string;
  lifecycle_revision: number;
  mapping_revision: number;
  trace_ids?: string[] | undefined;
}

/** What a retry would do with each selected held record under the active mapping, and the digest naming exactly that. */
async function proposeDispositions(deps: CoreDeps, scope: Scope, input: RetryInput): Promise<{ collection: CollectionRecord; preview: RetryPreview }> {
  const { collection } = await activeCollection(deps, scope, input.stream_id);
  if (collection.lifecycle_revision !== input.lifecycle_revision)
    throw staleLifecycleRevision(input.stream_id, collection.lifecycle_revision, input.lifecycle_revision);
  if (collection.mapping_revision !== input.mapping_revision) {
    throw new AppError(
      "conflict",
      `stale mapping_revision: the active mapping of stream ${input.stream_id} is revision ${collection.mapping_revision}, not ${input.mapping_revision}; re-read its status`,
      { current_revision: collection.mapping_revision },
    );
  }
  const records = input.trace_ids
    ? await dataSourceHeld.findHeld(deps.db, scope, input.stream_id, [...new Set(input.trace_ids)])
    : await dataSourceHeld.pageHeld(deps.db, scope, input.stream_id, null, HELD_PAGE_SIZE);
  if (input.trace_ids) {
    const found = new Set(records.map((record) => record.external_trace_id));
    const missing = input.trace_ids.findIndex((id) => !found.has(id));
    if (missing >= 0) {
      throw AppError.validation([
        { loc: ["body", "trace_ids", missing], msg: `'${input.trace_ids[missing]}' is not a held record of this stream`, type: "value_error" },
      ]);
    }
  }
  const definition = collection.mapping_definition as MappingDefinition;
  const dispositions = records.map((record) => dispositionOf(definition, record));
  const preview_digest = createHash("sha256")
    .update(
      canonicalize({
        stream_id: input.stream_id,
        lifecycle_revision: collection.lifecycle_revision,
        mapping_revision: collection.mapping_revision,
        dispositions,
      })!,
    )
    .digest("hex");
  return {
    collection,
    preview: { lifecycle_revision: collection.lifecycle_revision, mapping_revision: collection.mapping_revision, dispositions, preview_digest },
  };
}

/** Oversized records and ones still held stay held; a record no rule matches any more is discarded. */
function dispositionOf(definition: MappingDefinition, record: HeldRecord): RetryPreview["dispositions"][number] {
  const trace_id = record.external_trace_id;
  if (record.record === null) return { trace_id, disposition: "keep_held", reasons: record.reasons };
  const mapped = mapRecord(definition, record.record);
  if (mapped.status === "ready") return { trace_id, disposition: "import", reasons: [] };
  if (mapped.status === "excluded") return { trace_id, disposition: "discard", reasons: ["no rule of the active mapping matches"] };
  return { trace_id, disposition: "keep_held", reasons: mapped.reasons };
}

/** retry's answer: the preview applied, at the lifecycle revision it advanced to. */
type AppliedRetry = RetryPreview & { queued: true };

/** retry-preview: the dispositions and their digest; changes nothing. */
export async function previewRetry(deps: CoreDeps, scope: Scope, input: RetryInput): Promise<RetryPreview> {
  return (await proposeDispositions(deps, scope, input)).preview;
}

/**
 * retry (202): applies the previewed dispositions only when they are still exactly what the digest
 * names: records to import are queued for the collection's step (it imports them exactly once),
 * discarded ones dropped; the lifecycle revision advances.
 */
export async function applyRetry(
  deps: CoreDeps,
  scope: Scope,
  input: RetryInput & { preview_digest: string },
  /** An Idempotency-Key's (see writeOnce): the applied preview is the answer kept with the key. */
  record?: RecordAnswer<AppliedRetry>,
): Promise<AppliedRetry> {
  const { preview } = await proposeDispositions(deps, scope, input);
  if (preview.preview_digest !== input.preview_digest) {
    throw new AppError("conflict", "the held records or the mapping changed since the preview: preview the retry again and send its preview_digest");
  }
  const queue = preview.dispositions.filter((d) => d.disposition === "import").map((d) => d.trace_id);
  const discard = preview.dispositions.filter((d) => d.disposition === "discard").map((d) => d.trace_id);
  const applied = await deps.db.transaction(async (tx) => {
    const advanced = await dataSourceCollections.advanceLifecycle(tx, scope, input.stream_id, input.lifecycle_revision, "", [], deps.now());
    if (!advanced) return undefined;
    await dataSourceHeld.applyDispositions(tx, scope, input.stream_id, queue, discard);
    const answer: AppliedRetry = { ...preview, lifecycle_revision: advanced.lifecycle_revision, queued: true };
    await record?.(tx, answer);
    return { state: advanced.state, answer };
  });
  if (!applied) {
    const current = (await activeCollection(deps, scope, input.stream_id)).collection.lifecycle_revision;
    throw staleLifecycleRevision(input.stream_id, current, input.lifecycle_revision);
  }
  if (applied.state === "active") await deps.orchestrator?.schedule("collection", scope, input.stream_id);
  return applied.answer;
}
