import type { Client } from "@als/client";
import { INITIAL_BACKFILL_UNITS } from "@als/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { CredentialFields, filledCredentials, type ProviderCapability } from "./credential-fields.tsx";
import { ErrorNote } from "./error-note.tsx";
import { formatTime } from "./format.ts";
import { MappingStep } from "./mapping-step.tsx";
import type { DataSourceList } from "./pages/data-sources.tsx";
import { useMember } from "./session.tsx";
import { fromLocalInput, toLocalInput } from "./time-input.ts";
import { type Filter, FilterRows, sentFilters } from "./traffic-filters.tsx";

type Connection = Awaited<ReturnType<Client["projectDataSources"]["createConnection"]>>;
type Stream = Awaited<ReturnType<Client["projectDataSources"]["selectStream"]>>;

/** Where the wizard opens: a new connection, or the setup of a draft one. */
export interface WizardStart {
  connectionId: string | null;
}

const STEPS = [
  { id: "connect", title: "Connect" },
  { id: "project", title: "Project" },
  { id: "sample", title: "Sample" },
  { id: "mapping", title: "Mapping" },
  { id: "activate", title: "Activate" },
] as const;
type StepId = (typeof STEPS)[number]["id"];

const DAY = 86_400;

/**
 * Connect → project → sample → mapping → activate, over the project-scoped data-source routes. Each
 * step names the revision it read; the service answers 409 when another tab moved it, and the step
 * reads it again.
 */
export function DataSourceWizard({ start, list, onClose }: { start: WizardStart; list: DataSourceList; onClose(): void }) {
  const existing = list.connections.find((each) => each.connection_id === start.connectionId) ?? null;
  const existingStream = list.streams.find((each) => each.stream_id === existing?.stream_id) ?? null;
  const existingSample = list.samples.find((each) => each.stream_id === existingStream?.stream_id && each.status === "complete") ?? null;
  const [connection, setConnection] = useState<Connection | null>(existing);
  const [stream, setStream] = useState<Stream | null>(existingStream);
  const [sampleId, setSampleId] = useState<string | null>(existingSample?.sample_id ?? null);
  const [mappingRevision, setMappingRevision] = useState<number | null>(null);
  const step: StepId = !connection ? "connect" : !stream ? "project" : !sampleId ? "sample" : mappingRevision === null ? "mapping" : "activate";
  const index = STEPS.findIndex((each) => each.id === step);
  // Each step's heading takes the focus when the step opens, so a screen reader reads where the walk is.
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = useRef(step);
  useEffect(() => {
    if (shown.current === step) return;
    shown.current = step;
    heading.current?.focus();
  }, [step]);
  return (
    <section className="card" aria-labelledby="wizard-title">
      <h2 id="wizard-title" ref={heading} tabIndex={-1}>
        {connection ? `Set up ${connection.name}` : "Connect a data source"}: step {index + 1} of {STEPS.length}, {STEPS[index]!.title.toLowerCase()}
      </h2>
      <ol className="wizard-steps" aria-label="Setup steps">
        {STEPS.map((each, position) => (
          <li key={each.id} aria-current={each.id === step ? "step" : undefined} className={position < index ? "done" : undefined}>
            {each.title}
            {position < index && <span className="sr-only"> (done)</span>}
          </li>
        ))}
      </ol>
      {step === "connect" && <ConnectStep providers={list.capabilities.providers} onConnected={setConnection} />}
      {step === "project" && connection && (
        <ProjectStep
          connection={connection}
          paths={list.capabilities.filter_paths}
          filterExecution={list.capabilities.providers.find((each) => each.provider === connection.provider)?.filter_execution ?? "after_download"}
          onSelected={setStream}
        />
      )}
      {step === "sample" && stream && <SampleStep stream={stream} onSampled={setSampleId} />}
      {step === "mapping" && stream && sampleId && <MappingStep streamId={stream.stream_id} sampleId={sampleId} onValidated={setMappingRevision} />}
      {step === "activate" && stream && mappingRevision !== null && <ActivateStep stream={stream} mappingRevision={mappingRevision} onActivated={onClose} />}
      <div className="actions">
        <button type="button" onClick={onClose}>
          Close the setup (a draft keeps its progress)
        </button>
      </div>
    </section>
  );
}

/** Provider, region and credentials. The credentials are sent once and never shown again: the form forgets them. */
function ConnectStep({ providers, onConnected }: { providers: ProviderCapability[]; onConnected(connection: Connection): void }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const [name, setName] = useState("");
  const [providerId, setProviderId] = useState(providers[0]!.provider);
  const provider = providers.find((each) => each.provider === providerId)!;
  const [region, setRegion] = useState(provider.regions[0]!);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const connect = useMutation({
    mutationFn: () =>
      client.projectDataSources.createConnection({
        project_id: session.projectId,
        name,
        provider: providerId,
        region,
        ...filledCredentials(provider, secrets),
      }),
    onSettled: () => setSecrets({}),
    onSuccess: (connection) => {
      void queries.invalidateQueries({ queryKey: ["data-sources"] });
      onConnected(connection);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Connect">
      <label>
        Name
        <input value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Provider
        <select
          value={providerId}
          onChange={(event) => {
            const next = providers.find((each) => each.provider === event.target.value)!;
            setProviderId(next.provider);
            setRegion(next.regions[0]!);
            setSecrets({});
          }}
        >
          {providers.map((each) => (
            <option key={each.provider} value={each.provider}>
              {each.provider.replaceAll("_", " ")}
            </option>
          ))}
        </select>
      </label>
      <label>
        Region
        <select value={region} onChange={(event) => setRegion(event.target.value)}>
          {provider.regions.map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
      </label>
      <CredentialFields provider={provider} values={secrets} onChange={setSecrets} />
      <p className="muted">The credentials are stored sealed and never shown again, here or in any response.</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={connect.isPending}>
          Connect
        </button>
      </div>
      <ErrorNote error={connect.error} />
    </form>
  );
}

/**
 * The provider's projects the credentials reach (a provider read), the one to collect from, and the
 * traffic filters its collection reads with (only trace_provider_a's can be edited after activation).
 */
function ProjectStep({
  connection,
  paths,
  filterExecution,
  onSelected,
}: {
  connection: Connection;
  paths: string[];
  filterExecution: string;
  onSelected(stream: Stream): void;
}) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const discovered = useQuery({
    queryKey: ["discovered", session.projectId, connection.connection_id],
    queryFn: () => client.projectDataSources.discoverProjects({ project_id: session.projectId, connection_id: connection.connection_id }),
  });
  const [chosen, setChosen] = useState("");
  const [filters, setFilters] = useState<Filter[]>([]);
  const select = useMutation({
    mutationFn: async () => {
      // The connection's revision moves with rotation and selection: read it again rather than trust the one in hand.
      const current = await client.projectDataSources.getConnection({ project_id: session.projectId, connection_id: connection.connection_id });
      return client.projectDataSources.selectStream({
        project_id: session.projectId,
        connection_id: connection.connection_id,
        revision: current.revision,
        external_project_id: chosen,
        filters: sentFilters(filters),
      });
    },
    onSuccess: (stream) => {
      void queries.invalidateQueries({ queryKey: ["data-sources"] });
      onSelected(stream);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    select.mutate();
  };
  if (discovered.isPending) return <p>Reading the provider's projects…</p>;
  if (discovered.error) {
    return (
      <>
        <ErrorNote error={discovered.error} />
        <button type="button" onClick={() => discovered.refetch()}>
          Read the provider's projects again
        </button>
      </>
    );
  }
  return (
    <form className="stack" onSubmit={submit} aria-label="Project">
      <fieldset>
        <legend>The provider's project to collect from</legend>
        {discovered.data.projects.map((project) => (
          <label key={project.id} className="inline">
            <input type="radio" name="external-project" value={project.id} checked={chosen === project.id} onChange={() => setChosen(project.id)} />
            {project.name} <span className="muted">({project.id})</span>
          </label>
        ))}
      </fieldset>
      <fieldset className="stack">
        <legend>Traffic filters (optional; all must match; applied {filterExecution.replaceAll("_", " ")})</legend>
        <FilterRows filters={filters} onChange={setFilters} paths={paths} listId={`selection-paths-${connection.connection_id}`} />
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={!chosen || select.isPending}>
          Select this project
        </button>
      </div>
      <ErrorNote error={select.error} />
    </form>
  );
}

/** A sample of the stream's traffic in a window: up to 50 records, the evidence the mapping is reviewed against. */
export function SampleStep({ stream, onSampled }: { stream: Stream; onSampled(sampleId: string): void }) {
  const { client, session } = useMember();
  const now = Math.floor(Date.now() / 1000);
  const [window, setWindow] = useState({ start: toLocalInput(now - 7 * DAY), end: toLocalInput(now) });
  const [sampleId, setSampleId] = useState<string | null>(null);
  const request = useMutation({
    mutationFn: async () => {
      const streams = await client.projectDataSources.list({ project_id: session.projectId });
      const current = streams.streams.find((each) => each.stream_id === stream.stream_id);
      return client.projectDataSources.requestSample({
        project_id: session.projectId,
        stream_id: stream.stream_id,
        revision: current?.revision ?? stream.revision,
        sample_window: { start: new Date(fromLocalInput(window.start) * 1000).toISOString(), end: new Date(fromLocalInput(window.end) * 1000).toISOString() },
      });
    },
    onSuccess: (sample) => setSampleId(sample.sample_id),
  });
  const sample = useQuery({
    queryKey: ["sample", session.projectId, sampleId],
    queryFn: () => client.projectDataSources.getSample({ project_id: session.projectId, sample_id: sampleId! }),
    enabled: sampleId !== null,
    // Sampling is durable work of its own: the page asks again until it completes or fails.
    refetchInterval: (query) => (query.state.data?.status === "in_progress" ? 1_000 : false),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <>
      <form className="filters" onSubmit={submit} aria-label="Sample">
        <label>
          From
          <input type="datetime-local" value={window.start} onChange={(event) => setWindow({ ...window, start: event.target.value })} />
        </label>
        <label>
          To
          <input type="datetime-local" value={window.end} onChange={(event) => setWindow({ ...window, end: event.target.value })} />
        </label>
        <button type="submit" className="primary" disabled={request.isPending || sample.data?.status === "in_progress"}>
          {sampleId ? "Sample again" : "Sample the traffic"}
        </button>
      </form>
      <ErrorNote error={request.error ?? sample.error} />
      {sample.data && (
        <output>
          {sample.data.status === "in_progress" && <span>Sampling…</span>}
          {sample.data.status === "failed" && (
            <span className="error">
              The sample failed ({sample.data.code}){sample.data.retry_at ? `; the provider asks to try again after ${formatTime(sample.data.retry_at)}` : ""}.
            </span>
          )}
          {sample.data.status === "complete" && (
            <span>
              {sample.data.record_count} records sampled{sample.data.truncated ? " (more traffic matched than was kept)" : ""}; the sample expires{" "}
              {formatTime(sample.data.expires_at)}.
            </span>
          )}
        </output>
      )}
      {sample.data?.status === "complete" && (
        <>
          <SampleRecords records={sample.data.records} />
          <div className="actions">
            <button type="button" className="primary" disabled={sample.data.record_count === 0} onClick={() => onSampled(sample.data!.sample_id)}>
              Review the mapping against this sample
            </button>
          </div>
        </>
      )}
    </>
  );
}

type SampleRecord = Awaited<ReturnType<Client["projectDataSources"]["getSample"]>>["records"][number];

function SampleRecords({ records }: { records: SampleRecord[] }) {
  return (
    <details>
      <summary>The sampled records ({records.length})</summary>
      <ul className="plain">
        {records.map((record) => (
          <li key={record.trace_id}>
            <details>
              <summary>
                Trace {record.trace_id}, {formatTime(record.started_at)}
                {record.truncated ? " (cut to 64 KB)" : ""}
              </summary>
              <pre className="record">{JSON.stringify(record.trace, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ul>
    </details>
  );
}

/**
 * The history range to import (start-inclusive, end-exclusive, in the past) under the validated
 * mapping. The range can be kept with the draft (the stream's history draft) for a later visit,
 * which starts from it.
 */
function ActivateStep({ stream, mappingRevision, onActivated }: { stream: Stream; mappingRevision: number; onActivated(): void }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const now = Math.floor(Date.now() / 1000);
  const [history, setHistory] = useState(stream.history);
  const [range, setRange] = useState({
    start: toLocalInput(stream.history_start ?? now - 7 * DAY),
    end: toLocalInput(stream.history_end ?? now - 60),
  });
  const bounds = () => (history ? { history_start: fromLocalInput(range.start), history_end: fromLocalInput(range.end) } : {});
  // Sampling advanced the stream revision: a write names the one read now.
  const currentRevision = async () => {
    const streams = await client.projectDataSources.list({ project_id: session.projectId });
    return streams.streams.find((each) => each.stream_id === stream.stream_id)?.revision ?? stream.revision;
  };
  const keep = useMutation({
    mutationFn: async () =>
      client.projectDataSources.saveHistoryDraft({
        project_id: session.projectId,
        stream_id: stream.stream_id,
        revision: await currentRevision(),
        history,
        ...bounds(),
      }),
  });
  const activate = useMutation({
    mutationFn: async () =>
      client.projectDataSources.activate({
        project_id: session.projectId,
        stream_id: stream.stream_id,
        stream_revision: await currentRevision(),
        mapping_revision: mappingRevision,
        ...bounds(),
      }),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ["data-sources"] });
      onActivated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    activate.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Activate">
      <p>
        Mapping revision {mappingRevision} is validated. Activation fixes the provider, region and project; the collection then imports the history oldest first
        within a backfill budget of {INITIAL_BACKFILL_UNITS.toLocaleString()} message units (raise it later from the collection) and follows live traffic.
      </p>
      <label className="inline">
        <input type="checkbox" checked={history} onChange={(event) => setHistory(event.target.checked)} />
        Import past traffic
      </label>
      {history && (
        <div className="filters">
          <label>
            History from
            <input type="datetime-local" value={range.start} onChange={(event) => setRange({ ...range, start: event.target.value })} />
          </label>
          <label>
            History until (not included)
            <input type="datetime-local" value={range.end} onChange={(event) => setRange({ ...range, end: event.target.value })} />
          </label>
        </div>
      )}
      <div className="actions">
        <button type="button" disabled={keep.isPending} onClick={() => keep.mutate()}>
          Keep this choice with the draft
        </button>
        <button type="submit" className="primary" disabled={activate.isPending}>
          Activate the collection
        </button>
      </div>
      {keep.data && (
        <output>
          Kept with the draft:{" "}
          {keep.data.history ? `the history from ${formatTime(keep.data.history_start)} until ${formatTime(keep.data.history_end)}` : "no history"}.
        </output>
      )}
      <ErrorNote error={keep.error ?? activate.error} />
    </form>
  );
}
