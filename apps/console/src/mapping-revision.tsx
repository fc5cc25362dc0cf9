import type { Client } from "@als/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmAction } from "./confirm-action.tsx";
import { SampleStep } from "./data-source-wizard.tsx";
import { ErrorNote } from "./error-note.tsx";
import { MappingStep } from "./mapping-step.tsx";
import type { DataSourceList } from "./pages/data-sources.tsx";
import { useMember } from "./session.tsx";
import { isStaleRevision, type RevisionWrites } from "./stale-revision.ts";

type CollectionStatus = Awaited<ReturnType<Client["projectDataSources"]["status"]>>;

/**
 * A running collection's mapping revised: the draft edited against a fresh sample of the traffic
 * (a credential rotation makes earlier ones stale) beside its preview, saved and validated, then promoted to the active mapping
 * for the traces read from now on, confirmed before it runs. Held records are mapped again only by a
 * retry, previewed under the promoted revision.
 */
export function MappingRevision({ status, list, writes }: { status: CollectionStatus; list: DataSourceList; writes: RevisionWrites }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const stream = list.streams.find((each) => each.stream_id === status.stream_id);
  const [open, setOpen] = useState(false);
  const [sampleId, setSampleId] = useState<string | null>(null);
  const [validated, setValidated] = useState<number | null>(null);
  const close = () => {
    setOpen(false);
    setSampleId(null);
    setValidated(null);
  };
  const promote = useMutation({
    mutationFn: (revision: number) =>
      client.projectDataSources.promoteMapping({
        project_id: session.projectId,
        stream_id: status.stream_id,
        lifecycle_revision: status.lifecycle_revision,
        mapping_revision: revision,
      }),
    onSuccess: (next) => {
      writes.onSaved();
      close();
      queries.setQueryData(["collection", session.projectId, status.stream_id], next);
    },
    onError: writes.onError,
  });
  if (!stream || status.state === "stopped") return null;
  const heading = `revise-${status.stream_id}`;
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Revise the mapping
      </button>
    );
  }
  return (
    <section className="card" aria-labelledby={heading}>
      <h3 id={heading}>Revise the mapping (the collection reads with revision {status.mapping_revision})</h3>
      {sampleId === null ? (
        <SampleStep stream={stream} onSampled={setSampleId} />
      ) : validated === null ? (
        <MappingStep streamId={status.stream_id} sampleId={sampleId} onValidated={setValidated} />
      ) : (
        <div className="stack">
          <p>
            Mapping revision {validated} is validated. Promoted, it maps the traces read from now on; imported ones stay as they are, and held ones are mapped
            again only by a retry.
          </p>
          <ConfirmAction
            label={`Make revision ${validated} the active mapping`}
            confirmLabel={`Confirm: read from now on with mapping revision ${validated}`}
            pending={promote.isPending}
            onConfirm={() => promote.mutate(validated)}
          />
          <ErrorNote error={isStaleRevision(promote.error) ? null : promote.error} />
        </div>
      )}
      <div className="actions">
        {sampleId !== null && validated === null && (
          <button type="button" onClick={() => setSampleId(null)}>
            Take a fresh sample
          </button>
        )}
        <button type="button" onClick={close}>
          Close the revision (a saved draft is kept)
        </button>
      </div>
    </section>
  );
}
