import type { Client } from "@als/client";
import { useQuery } from "@tanstack/react-query";
import { ErrorNote } from "./error-note.tsx";
import { formatTime } from "./format.ts";
import { memberClient, useMember } from "./session.tsx";

type PurgeOperation = Awaited<ReturnType<Client["governance"]["eraseUser"]>>;

/** An erasure the service accepted, followed to its end with the governance session that started it. */
export function PurgeProgress({ accepted, governanceToken }: { accepted: PurgeOperation; governanceToken: string }) {
  const { session } = useMember();
  const progress = useQuery({
    queryKey: ["purge", accepted.purge_id],
    queryFn: () => memberClient(governanceToken, session.projectId).governance.getPurgeOperation({ purge_id: accepted.purge_id }),
    // Until the erasure is done; each poll is one bounded request.
    refetchInterval: (query) => (query.state.data && ["complete", "failed"].includes(query.state.data.status) ? false : 1_000),
  });
  const operation = progress.data ?? accepted;
  return (
    <output className="card">
      <ErrorNote error={progress.error} />
      <p>
        Erasure {operation.purge_id}: <strong>{operation.status}</strong> (phase {operation.phase})
        {operation.completed_at ? `, completed ${formatTime(operation.completed_at)}` : ""}
        {operation.physically_removed_at ? `, removed from the database files ${formatTime(operation.physically_removed_at)}` : ""}.
      </p>
      {operation.error_code && <p className="error">Error: {operation.error_code}</p>}
      <ul className="plain">
        {Object.entries(operation.deleted_counts).map(([table, count]) => (
          <li key={table}>
            {table}: {count} removed
          </li>
        ))}
      </ul>
    </output>
  );
}
