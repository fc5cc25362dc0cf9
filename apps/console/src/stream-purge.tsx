import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ConfirmAction } from "./confirm-action.tsx";
import { ErasureFields, type ErasureInput, erasureConfirmed } from "./erasure-fields.tsx";
import { ErrorNote } from "./error-note.tsx";
import { PurgeProgress } from "./purge-progress.tsx";
import { memberClient, useMember } from "./session.tsx";

/**
 * A user erased through a data source: the erase-user operation, which also removes this project's
 * held records and samples naming the user and keeps import receipts as suppressions without them.
 * A governance session (the password typed again) previews what would go, and the erasure runs only
 * once confirmed, for the user ID typed twice.
 */
export function StreamPurge({ streamId }: { streamId: string }) {
  const { client, session } = useMember();
  const [input, setInput] = useState<ErasureInput>({ userId: "", confirmation: "", password: "" });
  const { userId, password } = input;
  // The caller's id of this erasure: the service answers a repeat of it with the same operation.
  const [requestId] = useState(() => `console-${crypto.randomUUID()}`);
  const [governanceToken, setGovernanceToken] = useState<string | null>(null);
  const subject = (user: string) => ({ project_id: session.projectId, stream_id: streamId, user_id: user, request_id: requestId });
  const preview = useMutation({
    mutationFn: async (user: string) => {
      const governance = await client.account.createGovernanceSession({ password });
      setGovernanceToken(governance.token);
      return memberClient(governance.token, session.projectId).governance.projectStreamPurgePreview(subject(user));
    },
    onSuccess: () => setInput((typed) => ({ ...typed, password: "" })),
  });
  const purge = useMutation({
    mutationFn: (user: string) => memberClient(governanceToken!, session.projectId).governance.projectStreamPurgeUser(subject(user)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate(userId);
  };
  // A preview answers for the user it was asked for: another user ID needs its own.
  const previewed = preview.data && preview.variables === userId ? preview.data : null;
  return (
    <details>
      <summary>Erase a user imported from this source</summary>
      <form onSubmit={submit} className="stack" aria-label="Erase a user through this source">
        <ErasureFields input={input} onChange={setInput} />
        <button type="submit" disabled={preview.isPending || !erasureConfirmed(input)}>
          Preview the erasure of {userId || "the user"}
        </button>
        <ErrorNote error={preview.error} />
      </form>
      {previewed && !purge.data && (
        <div className="stack">
          <p>{previewed.scope}</p>
          <ul className="plain" aria-label="What the erasure would remove">
            {Object.entries(previewed.estimated_counts).map(([kind, count]) => (
              <li key={kind}>
                {kind.replaceAll("_", " ")}: {count}
              </li>
            ))}
          </ul>
          <ConfirmAction
            label={`Erase ${userId} through this source`}
            confirmLabel={`Confirm: erase ${userId} from ${session.projectId} (cannot be undone)`}
            pending={purge.isPending}
            onConfirm={() => purge.mutate(userId)}
            danger
          />
          <ErrorNote error={purge.error} />
        </div>
      )}
      {purge.data && governanceToken && <PurgeProgress accepted={purge.data} governanceToken={governanceToken} />}
    </details>
  );
}
