import type { Client } from "@als/client";
import { BACKLOG_WORK_STATUSES } from "@als/contract";
import { useQuery } from "@tanstack/react-query";
import { ErrorNote } from "./error-note.tsx";
import { formatDuration, formatTime } from "./format.ts";
import { useMember } from "./session.tsx";

type Backlog = Awaited<ReturnType<Client["learning"]["backlog"]>>;

/**
 * Whether learning keeps up in each project of the organisation (the oldest request not yet learned
 * from, the users waiting) and the durable work not finished well, by project and kind, with the
 * Temporal UI's list of workflows in full mode.
 */
export function BacklogState() {
  const { client, session } = useMember();
  const backlog = useQuery({ queryKey: ["backlog", session.token], queryFn: () => client.learning.backlog(), refetchOnMount: "always" });
  const me = useQuery({ queryKey: ["me", session.token], queryFn: () => client.account.me() });
  const projects = me.data?.projects.map((project) => project.project_id) ?? [session.projectId];
  return (
    <section className="card" aria-labelledby="backlog-title">
      <h2 id="backlog-title">Learning lag and durable work</h2>
      <ErrorNote error={backlog.error} />
      {backlog.isPending && <p>Loading…</p>}
      {backlog.data && (
        <>
          <table>
            <caption className="muted">Per project of the organisation: requests not yet learned from</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Learning lag</th>
                <th scope="col">Oldest waiting request</th>
                <th scope="col">Users waiting</th>
              </tr>
            </thead>
            <tbody>
              {[...new Set([...backlog.data.projects.map((each) => each.project_id), ...projects])].map((projectId) => {
                const lag = backlog.data.projects.find((each) => each.project_id === projectId);
                return (
                  <tr key={projectId}>
                    <th scope="row">{projectId}</th>
                    <td>{lag ? formatDuration(lag.lag_seconds) : "keeping up"}</td>
                    <td>{lag ? formatTime(lag.oldest_pending_at) : "—"}</td>
                    <td>{lag ? lag.waiting_users : 0}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <DurableWork backlog={backlog.data} />
        </>
      )}
    </section>
  );
}

function DurableWork({ backlog }: { backlog: Backlog }) {
  const rows = [...new Set(backlog.durable_work.map((row) => `${row.project_id}\u0000${row.kind}`))].sort().map((key) => {
    const [projectId, kind] = key.split("\u0000") as [string, string];
    const count = (status: string) =>
      backlog.durable_work.find((row) => row.project_id === projectId && row.kind === kind && row.status === status)?.count ?? 0;
    return { projectId, kind, counts: BACKLOG_WORK_STATUSES.map(count) };
  });
  return (
    <>
      {rows.length === 0 ? (
        <p className="muted">No durable work queued, running, retrying or failed.</p>
      ) : (
        <table>
          <caption className="muted">Durable work not finished well, by project and kind</caption>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Kind</th>
              {BACKLOG_WORK_STATUSES.map((status) => (
                <th key={status} scope="col">
                  {status}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.projectId}\u0000${row.kind}`}>
                <th scope="row">{row.projectId}</th>
                <td>{row.kind.replaceAll("_", " ")}</td>
                {row.counts.map((count, index) => (
                  <td key={BACKLOG_WORK_STATUSES[index]}>{count}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {backlog.temporal_ui && (
        <p>
          <a href={backlog.temporal_ui.workflows_url} target="_blank" rel="noreferrer">
            The workflows in the Temporal UI
          </a>
        </p>
      )}
    </>
  );
}
