import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErasureFields, type ErasureInput, erasureConfirmed } from "../erasure-fields.tsx";
import { ErrorNote } from "../error-note.tsx";
import { PurgeProgress } from "../purge-progress.tsx";
import { memberClient, useMember } from "../session.tsx";

/**
 * Erase one user of the project. Erasure needs a governance session, opened with the password typed
 * again, and the user ID typed a second time: it cannot be undone.
 */
export function ErasePage() {
  const { client, session } = useMember();
  const [input, setInput] = useState<ErasureInput>({ userId: "", confirmation: "", password: "" });
  const { userId, password } = input;
  // The caller's id of this erasure: the service answers a repeat of it with the same operation.
  const [requestId] = useState(() => `console-${crypto.randomUUID()}`);
  const [governanceToken, setGovernanceToken] = useState<string | null>(null);
  const erase = useMutation({
    mutationFn: async () => {
      const governance = await client.account.createGovernanceSession({ password });
      setGovernanceToken(governance.token);
      return memberClient(governance.token, session.projectId).governance.eraseUser({ user_id: userId, request_id: requestId });
    },
    onSuccess: () => setInput((typed) => ({ ...typed, password: "" })),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    erase.mutate();
  };
  return (
    <section aria-labelledby="erase-title">
      <h1 id="erase-title">Erase a user</h1>
      <p>
        Removes everything the project holds about the user (interactions, profiles, user playbooks, their questions). Agent playbooks stay. This cannot be
        undone.
      </p>
      {session.localOperator && (
        <p className="warning">
          The local operator has no password, so it cannot open the governance session erasure needs. A member of the local organisation who signs in with a
          password can: invite one (<code>POST /api/account/invitations</code>; without a mail server the link is in the server's log) after{" "}
          <code>scripts/als governance grant --org local</code>.
        </p>
      )}
      <form onSubmit={submit} className="stack card">
        <ErasureFields input={input} onChange={setInput} />
        <button type="submit" className="danger" disabled={erase.isPending || !erasureConfirmed(input)}>
          Erase {userId || "the user"} from {session.projectId}
        </button>
        <ErrorNote error={erase.error} />
      </form>
      {erase.data && governanceToken && <PurgeProgress accepted={erase.data} governanceToken={governanceToken} />}
    </section>
  );
}
