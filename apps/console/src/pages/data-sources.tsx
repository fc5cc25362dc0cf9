import { type Client, ClientError } from "@als/client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { CollectionView } from "../collection-view.tsx";
import { ConnectionSettings } from "../connection-settings.tsx";
import { DataSourceWizard, type WizardStart } from "../data-source-wizard.tsx";
import { describeError, ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { pageLink, routeParams } from "../route.ts";
import { useMember } from "../session.tsx";

export type DataSourceList = Awaited<ReturnType<Client["projectDataSources"]["list"]>>;
type Connection = DataSourceList["connections"][number];

/**
 * The project's data sources, one card per connection with its stream's collection, and the setup
 * wizard. The dashboard's source parameter (#/data-sources?source=<connection id>) opens one
 * connection, resolved through the setup context as the contract's review link names it.
 */
export function DataSourcesPage() {
  const { client, session } = useMember();
  const list = useQuery({
    queryKey: ["data-sources", session.projectId],
    queryFn: () => client.projectDataSources.list({ project_id: session.projectId }),
    refetchOnMount: "always",
  });
  const [source, setSource] = useState(() => routeParams().get("source") ?? "");
  // A link followed while the page is open changes only the hash: the source it names is read again.
  useEffect(() => {
    const followed = () => setSource(routeParams().get("source") ?? "");
    window.addEventListener("hashchange", followed);
    return () => window.removeEventListener("hashchange", followed);
  }, []);
  const context = useQuery({
    queryKey: ["setup-context", session.projectId, source],
    queryFn: () => client.projectDataSources.setupContext({ project_id: session.projectId, connection_id: source }),
    enabled: source !== "",
    retry: false,
  });
  const showAll = () => {
    setSource("");
    window.history.replaceState(null, "", pageLink("data-sources", {}));
  };
  const [wizard, setWizard] = useState<WizardStart | null>(null);
  const capabilities = list.data?.capabilities;
  const shown = source ? (list.data?.connections ?? []).filter((each) => each.connection_id === context.data?.connection_id) : (list.data?.connections ?? []);
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
          {source && (
            <div className="actions">
              <output>
                {context.isPending
                  ? "Reading the connection…"
                  : context.error
                    ? context.error instanceof ClientError && context.error.status === 404
                      ? `The link's data source ${source} is not one of this project's.`
                      : describeError(context.error)
                    : `Showing the data source ${source} only.`}
              </output>
              <button type="button" onClick={showAll}>
                Show every data source
              </button>
            </div>
          )}
          {list.data.connections.length === 0 ? (
            <p className="muted">No data source yet.</p>
          ) : (
            shown.map((connection) => (
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
        <CollectionView
          streamId={connection.stream_id}
          list={list}
          liveFilters={list.capabilities.providers.some((each) => each.provider === connection.provider && each.live_traffic_filters)}
        />
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
