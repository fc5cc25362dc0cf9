import { AppError, type MappingDefinition, type MappingDocument } from "@als/contract";
import { dataSourceCollections, dataSources, type MappingDraftRecord, type Scope, type StreamRecord } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { refuseWhenActivated } from "./connections.ts";
import { staleDraftRevision, staleRevision } from "./stale-revision.ts";

/** A stream of one of the project's live connections; 404 otherwise. */
export async function liveStream(deps: CoreDeps, scope: Scope, streamId: string): Promise<StreamRecord> {
  const found = await dataSources.findStream(deps.db, scope, streamId, deps.now());
  if (!found) throw AppError.notFound(`stream '${streamId}'`);
  return found;
}

/**
 * Saves the history draft of a stream read at `revision` (rule 5: a range is start-inclusive,
 * end-exclusive, and not in the future). Advances the stream revision.
 */
export async function saveHistoryDraft(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; revision: number; history: boolean; history_start?: number | undefined; history_end?: number | undefined },
) {
  const now = deps.now();
  if (input.history_end !== undefined && input.history_end > now) {
    throw AppError.validation([{ loc: ["body", "history_end"], msg: `must not be in the future (now is ${now})`, type: "value_error" }]);
  }
  const stream = await liveStream(deps, scope, input.stream_id);
  if (stream.revision !== input.revision) throw staleRevision("stream", input.stream_id, stream.revision, input.revision);
  await refuseWhenActivated(deps, scope, stream.connection_id, "its history range");
  const saved = await dataSources.saveHistoryDraft(deps.db, scope, input.stream_id, input.revision, {
    history: input.history,
    history_start: input.history_start ?? null,
    history_end: input.history_end ?? null,
    updated_at: now,
  });
  if (!saved) throw staleRevision("stream", input.stream_id, (await liveStream(deps, scope, input.stream_id)).revision, input.revision);
  return { stream_id: saved.stream_id, history: saved.history, history_start: saved.history_start, history_end: saved.history_end, revision: saved.revision };
}

function toMappingDocument(streamId: string, draft: MappingDraftRecord | undefined, activeRevision: number | null): MappingDocument {
  return {
    stream_id: streamId,
    draft: (draft?.definition as MappingDefinition | undefined) ?? null,
    revision: draft?.revision ?? 0,
    validated_revision: draft?.validated_revision ?? null,
    mapping_revision: activeRevision,
    updated_at: draft?.updated_at ?? null,
  };
}

export async function getMappingDocument(deps: CoreDeps, scope: Scope, streamId: string): Promise<MappingDocument> {
  await liveStream(deps, scope, streamId);
  const collection = await dataSourceCollections.findCollection(deps.db, scope, streamId);
  return toMappingDocument(streamId, await dataSources.findMappingDraft(deps.db, scope, streamId), collection?.mapping_revision ?? null);
}

/** Saves a complete definition as the draft (rule 6): the revision advances and validation is cleared. */
export async function saveMappingDraft(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; expected_revision: number; definition: MappingDefinition },
): Promise<MappingDocument> {
  await liveStream(deps, scope, input.stream_id);
  const saved = await deps.db.transaction((tx) =>
    dataSources.saveMappingDraft(tx, scope, input.stream_id, input.expected_revision, input.definition, deps.now()),
  );
  if (!saved) {
    const current = (await dataSources.findMappingDraft(deps.db, scope, input.stream_id))?.revision ?? 0;
    throw staleDraftRevision(input.stream_id, current, input.expected_revision);
  }
  return toMappingDocument(input.stream_id, saved, (await dataSourceCollections.findCollection(deps.db, scope, input.stream_id))?.mapping_revision ?? null);
}

/**
 * The draft at `mappingRevision` when it is the validated one: what activation and promotion make
 * the active mapping (409 when the draft moved, 422 when that revision is not validated).
 */
export async function validatedDraft(deps: CoreDeps, scope: Scope, streamId: string, mappingRevision: number): Promise<MappingDraftRecord> {
  const draft = await dataSources.findMappingDraft(deps.db, scope, streamId);
  if (!draft || draft.revision !== mappingRevision) throw staleDraftRevision(streamId, draft?.revision ?? 0, mappingRevision);
  if (draft.validated_revision !== draft.revision) {
    throw AppError.validation([
      {
        loc: ["body", "mapping_revision"],
        msg: `mapping revision ${draft.revision} is not validated: validate it against a sample first`,
        type: "not_validated",
      },
    ]);
  }
  return draft;
}
