import type { Client } from "@als/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmAction } from "./confirm-action.tsx";
import { ErrorNote } from "./error-note.tsx";
import { formatTime } from "./format.ts";
import { MappingRevision } from "./mapping-revision.tsx";
import type { DataSourceList } from "./pages/data-sources.tsx";
import { pageLink } from "./route.ts";
import { useMember } from "./session.tsx";
import { isStaleRevision, type RevisionWrites } from "./stale-revision.ts";
import { StreamPurge } from "./stream-purge.tsx";
import { TrafficFilters } from "./traffic-filters.tsx";

type CollectionStatus = Awaited<ReturnType<Client["projectDataSources"]["status"]>>;
type RetryPreview = Awaited<ReturnType<Client["projectDataSources"]["previewRetry"]>>;

/** What a collection is doing in one word, for the badge: a recorded provider error outranks the lifecycle state. */
function condition(status: CollectionStatus): { word: string; badge: string } {
  if (status.state === "stopped") return { word: "stopped", badge: "not_tracked" };
  if (status.state === "paused") return { word: "paused", badge: "pending" };
  if (status.last_error) return { word: "failing", badge: "failed" };
  return { word: status.state === "backfilling" ? "running: backfilling" : "running: collecting", badge: "done" };
}

/** A stale lifecycle revision (409) re-reads the status; the operator is told why the action did not run. */
const STALE = "The collection changed since this page read it: it was read again. Check it and try once more.";

/**
 * An activated stream's collection: its state (running, paused, failing with the provider's message
 * and the next step), backfill and live progress, the operations, the backfill budget, the traffic
 * filters, the mapping's revision and promotion, held records a page at a time with their retry,
 * the recent imports, and a user's erasure through the source.
 */
export function CollectionView({ streamId, list, liveFilters }: { streamId: string; list: DataSourceList; liveFilters: boolean }) {
  const { client, session } = useMember();
  const scope = { project_id: session.projectId, stream_id: streamId };
  const queries = useQueryClient();
  const status = useQuery({
    queryKey: ["collection", session.projectId, streamId],
    queryFn: () => client.projectDataSources.status(scope),
    refetchOnMount: "always",
    // A running collection moves on its own: the page follows it while it backfills or fails.
    refetchInterval: (query) => (query.state.data && query.state.data.state !== "stopped" ? 2_000 : false),
  });
  const [stale, setStale] = useState(false);
  const reread = () => queries.invalidateQueries({ queryKey: ["collection", session.projectId, streamId] });
  // The notice stays through the page's own re-reads, until a write at the revision read again succeeds.
  const writes: RevisionWrites = {
    onError: (error) => {
      if (!isStaleRevision(error)) return;
      setStale(true);
      void reread();
    },
    onSaved: () => setStale(false),
  };
  const operate = useMutation({
    mutationFn: (operation: "pause" | "resume" | "poll_now" | "stop") =>
      client.projectDataSources.operate({ ...scope, lifecycle_revision: status.data!.lifecycle_revision, operation }),
    onSuccess: (next) => {
      writes.onSaved();
      queries.setQueryData(["collection", session.projectId, streamId], next);
    },
    onError: writes.onError,
  });
  if (status.error) return <ErrorNote error={status.error} />;
  if (!status.data) return <p>Loading…</p>;
  const current = status.data;
  const { word, badge } = condition(current);
  const backfill = current.backfill;
  return (
    <div className="collection">
      <output>
        Collection: <span className={`badge ${badge}`}>{word}</span> <span className="muted">(lifecycle revision {current.lifecycle_revision})</span>
      </output>
      {stale && (
        <p className="warning" role="alert">
          {STALE}
        </p>
      )}
      {current.last_error && (
        <div className="warning">
          <p>
            {current.last_error.code.replaceAll("_", " ")} at {formatTime(current.last_error.at)}: {current.last_error.message}
          </p>
          {current.cooldown_until !== null && <p>The provider limited the rate: reading waits until {formatTime(current.cooldown_until)}.</p>}
        </div>
      )}
      <dl className="playbook">
        <dt>Backfill</dt>
        <dd>
          {backfill.status.replaceAll("_", " ")}
          {backfill.history_start !== null && ` (${formatTime(backfill.history_start)} – ${formatTime(backfill.history_end)})`}: {backfill.counts.imported}{" "}
          imported, {backfill.counts.held} held, {backfill.counts.excluded} excluded, {backfill.counts.duplicates} duplicates of {backfill.counts.read} read;{" "}
          {backfill.message_units_used} of {backfill.message_unit_limit ?? "all"} message units used
        </dd>
        <dt>Live</dt>
        <dd>
          {current.live.counts.imported} imported, {current.live.counts.held} held; last read {formatTime(current.live.last_polled_at)}, next{" "}
          {formatTime(current.live.next_poll_at)}
        </dd>
        <dt>Held records</dt>
        <dd>{current.held}</dd>
        <dt>Mapping</dt>
        <dd>revision {current.mapping_revision}</dd>
      </dl>
      <div className="actions">
        {current.state === "paused" ? (
          <button type="button" className="primary" disabled={operate.isPending} onClick={() => operate.mutate("resume")}>
            Resume
          </button>
        ) : (
          current.state !== "stopped" && (
            <>
              <ConfirmAction label="Pause" confirmLabel="Confirm: pause the collection" pending={operate.isPending} onConfirm={() => operate.mutate("pause")} />
              <button type="button" disabled={operate.isPending} onClick={() => operate.mutate("poll_now")}>
                Read live traffic now
              </button>
            </>
          )
        )}
        {current.state !== "stopped" && (
          <ConfirmAction
            label="Stop for good"
            confirmLabel="Confirm: stop the collection for good (imports stay)"
            pending={operate.isPending}
            onConfirm={() => operate.mutate("stop")}
            danger
          />
        )}
      </div>
      <ErrorNote error={isStaleRevision(operate.error) ? null : operate.error} />
      <MappingRevision status={current} list={list} writes={writes} />
      <TrafficFilters status={current} editable={liveFilters && current.state !== "stopped"} paths={list.capabilities.filter_paths} writes={writes} />
      {backfill.status === "budget_exhausted" && <ExtendBackfill status={current} writes={writes} />}
      {current.held > 0 && <HeldRecords status={current} writes={writes} />}
      <Evidence streamId={streamId} />
      <StreamPurge streamId={streamId} />
    </div>
  );
}

/** The backfill stopped at its message-unit budget: a larger one (or all of the history) lets it go on. */
function ExtendBackfill({ status, writes }: { status: CollectionStatus; writes: RevisionWrites }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const [units, setUnits] = useState((status.backfill.message_unit_limit ?? 0) * 2);
  const extend = useMutation({
    mutationFn: (message_units: number | null) =>
      client.projectDataSources.extendBackfill({
        project_id: session.projectId,
        stream_id: status.stream_id,
        lifecycle_revision: status.lifecycle_revision,
        message_units,
      }),
    onSuccess: (next) => {
      writes.onSaved();
      queries.setQueryData(["collection", session.projectId, status.stream_id], next);
    },
    onError: writes.onError,
  });
  return (
    <div className="warning-card card">
      <p>The backfill used its budget of {status.backfill.message_unit_limit} message units; older history waits.</p>
      <div className="actions">
        <label className="inline">
          New budget (message units)
          <input type="number" min={(status.backfill.message_unit_limit ?? 0) + 1} value={units} onChange={(event) => setUnits(Number(event.target.value))} />
        </label>
        <ConfirmAction
          label="Raise the budget"
          confirmLabel={`Confirm: raise the backfill budget to ${units}`}
          pending={extend.isPending}
          onConfirm={() => extend.mutate(units)}
        />
        <ConfirmAction
          label="Import all of the history"
          confirmLabel="Confirm: import all of the history"
          pending={extend.isPending}
          onConfirm={() => extend.mutate(null)}
        />
      </div>
      <ErrorNote error={isStaleRevision(extend.error) ? null : extend.error} />
    </div>
  );
}

/** Records the collection could not import, with their reasons; a retry maps them again under the active mapping, previewed first. */
function HeldRecords({ status, writes }: { status: CollectionStatus; writes: RevisionWrites }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const scope = { project_id: session.projectId, stream_id: status.stream_id };
  // The cursors of the pages opened after the first: the last one is the page shown.
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const held = useQuery({
    // Records are held as the collection reads, without a new lifecycle revision: their count names the read too.
    queryKey: ["held-records", session.projectId, status.stream_id, status.lifecycle_revision, status.held, after ?? ""],
    queryFn: () => client.projectDataSources.listHeld({ ...scope, ...(after !== undefined && { after }) }),
    placeholderData: (previous) => previous,
  });
  const [proposal, setProposal] = useState<RetryPreview | null>(null);
  const revisions = { lifecycle_revision: status.lifecycle_revision, mapping_revision: status.mapping_revision };
  const preview = useMutation({
    mutationFn: () => client.projectDataSources.previewRetry({ ...scope, ...revisions }),
    onSuccess: (next) => {
      writes.onSaved();
      setProposal(next);
    },
    onError: writes.onError,
  });
  const retry = useMutation({
    mutationFn: () => client.projectDataSources.retry({ ...scope, ...revisions, preview_digest: proposal!.preview_digest }),
    onSuccess: () => {
      writes.onSaved();
      setProposal(null);
      return queries.invalidateQueries({ queryKey: ["collection", session.projectId, status.stream_id] });
    },
    onError: (error) => {
      // The held records or a revision moved since the preview: its digest is spent, a new preview is asked for.
      if (isStaleRevision(error)) setProposal(null);
      writes.onError(error);
    },
  });
  const counts = (disposition: string) => proposal?.dispositions.filter((each) => each.disposition === disposition).length ?? 0;
  const heading = `held-records-${status.stream_id}`;
  return (
    <section aria-labelledby={heading}>
      <h3 id={heading}>Held records</h3>
      <ErrorNote error={held.error} />
      {held.data && (
        <ul className="plain">
          {held.data.records.map((record) => (
            <li key={record.trace_id}>
              <span className={`badge ${record.status === "queued" ? "processing" : "pending"}`}>{record.status}</span> <code>{record.trace_id}</code> (
              {record.phase}, {formatTime(record.started_at)}): {record.reasons.join(", ")}
            </li>
          ))}
        </ul>
      )}
      {(cursors.length > 0 || held.data?.next_cursor) && (
        <div className="actions">
          <span className="muted">Page {cursors.length + 1}</span>
          {cursors.length > 0 && (
            <button type="button" disabled={held.isFetching} onClick={() => setCursors(cursors.slice(0, -1))}>
              Earlier held records
            </button>
          )}
          {held.data?.next_cursor && (
            <button type="button" disabled={held.isFetching} onClick={() => setCursors([...cursors, held.data.next_cursor!])}>
              Later held records
            </button>
          )}
        </div>
      )}
      {proposal ? (
        <div className="stack">
          <p>
            Under mapping revision {proposal.mapping_revision}: {counts("import")} would be imported, {counts("keep_held")} stay held, {counts("discard")}{" "}
            discarded.
          </p>
          <ConfirmAction
            label="Retry as previewed"
            confirmLabel={`Confirm: retry ${proposal.dispositions.length} held records`}
            pending={retry.isPending}
            onConfirm={() => retry.mutate()}
          />
        </div>
      ) : (
        <button type="button" disabled={preview.isPending} onClick={() => preview.mutate()}>
          Preview a retry of the held records
        </button>
      )}
      <ErrorNote error={[preview.error, retry.error].find((error) => error && !isStaleRevision(error))} />
    </section>
  );
}

/** The latest import receipts: which trace became which request, and where learning from it stands. */
function Evidence({ streamId }: { streamId: string }) {
  const { client, session } = useMember();
  const evidence = useQuery({
    queryKey: ["evidence", session.projectId, streamId],
    queryFn: () => client.projectDataSources.evidence({ project_id: session.projectId, stream_id: streamId }),
    refetchInterval: 5_000,
  });
  return (
    <details>
      <summary>Recent imports ({evidence.data?.receipts.length ?? "…"})</summary>
      <ErrorNote error={evidence.error} />
      <ul className="plain">
        {evidence.data?.receipts.map((receipt) => (
          <li key={receipt.trace_id}>
            <code>{receipt.trace_id}</code> ({receipt.phase}, {formatTime(receipt.imported_at)}, rule {receipt.rule ?? "—"}) →{" "}
            <a href={pageLink("conversations", { user_id: receipt.user_id })}>user {receipt.user_id}</a>, request {receipt.request_id}:{" "}
            <span className={`badge ${receipt.learning_status}`}>{receipt.learning_status}</span>
            {receipt.learning_reason ? ` (${receipt.learning_reason})` : ""}
          </li>
        ))}
      </ul>
    </details>
  );
}
