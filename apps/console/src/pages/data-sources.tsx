import type { Client } from "@als/client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { CollectionView } from "../collection-view.tsx";
import { ConnectionSettings } from "../connection-settings.tsx";
import { DataSourceWizard, type WizardStart } from "../data-source-wizard.tsx";
import { ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { useMember } from "../session.tsx";

export type DataSourceList = Awaited<ReturnType<Client["projectDataSources"]["list"]>>;
type Connection = DataSourceList["connections"][number];

/** The project's data sources, one card per connection with its stream's collection, and the setup wizard. */
export function DataSourcesPage() {
  const { client, session } = useMember();
  const list = useQuery({
    queryKey: ["data-sources", session.projectId],
    queryFn: () => client.projectDataSources.list({ project_id: session.projectId }),
    refetchOnMount: "always",
  });
  const [wizard, setWizard] = useState<WizardStart | null>(null);
  const capabilities = list.data?.capabilities;
  return (
    <section aria-labelledby="data-sources-title">
      <h1 id="data-sources-title">Data sources</h1>
      <p className="muted">Traces of your agents in a tracing provider, imported as conversations the service learns from.</p>
      <ErrorNote error={list.error} />
      {list.isPending && <p>Loading…</p>}
      {list.data && capabilities && (
        <>
          <p>
            {capabilities.connections_in_use} of {capabilities.connection_limit} connections in use (setup drafts included).
          </p>
          {wizard ? (
            <DataSourceWizard key={wizard.connectionId ?? "new"} start={wizard} list={list.data} onClose={() => setWizard(null)} />
          ) : (
            <button
              type="button"
              className="primary"
              disabled={capabilities.connections_in_use >= capabilities.connection_limit}
              onClick={() => setWizard({ connectionId: null })}
            >
              Connect a data source
            </button>
          )}
          {list.data.connections.length === 0 ? (
            <p className="muted">No data source yet.</p>
          ) : (
            list.data.connections.map((connection) => (
              <ConnectionCard
                key={connection.connection_id}
                connection={connection}
                list={list.data}
                onContinue={() => setWizard({ connectionId: connection.connection_id })}
                setupOpen={wizard !== null}
              />
            ))
          )}
        </>
      )}
    </section>
  );
}

function ConnectionCard({ connection, list, onContinue, setupOpen }: { connection: Connection; list: DataSourceList; onContinue(): void; setupOpen: boolean }) {
  const stream = list.streams.find((each) => each.stream_id === connection.stream_id);
  const heading = `connection-${connection.connection_id}`;
  return (
    <article className="card" aria-labelledby={heading}>
      <h2 id={heading} className="card-title">
        {connection.name}{" "}
        <span className="muted">
          ({connection.provider.replaceAll("_", " ")}, region {connection.region})
        </span>
      </h2>
      <p>
        Project: {stream ? `${stream.external_project_name} (${stream.external_project_id})` : "not selected yet"}. Connection ID{" "}
        <code>{connection.connection_id}</code>.
      </p>
      {connection.status === "activated" && connection.stream_id ? (
        <CollectionView streamId={connection.stream_id} />
      ) : (
        <>
          <p>
            <span className="badge waiting">setup</span> A draft until it is activated; it holds a connection slot until{" "}
            {formatTime(connection.draft_expires_at)}.
          </p>
          {!setupOpen && (
            <button type="button" onClick={onContinue}>
              Continue the setup of {connection.name}
            </button>
          )}
        </>
      )}
      <ConnectionSettings connection={connection} provider={list.capabilities.providers.find((each) => each.provider === connection.provider)!} />
    </article>
  );
}
