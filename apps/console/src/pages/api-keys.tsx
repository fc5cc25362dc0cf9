import type { Client } from "@als/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { useMember } from "../session.tsx";

/** The organisation's API keys by prefix; a new key's value is shown once, right after it is made. */
export function ApiKeysPage() {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const keys = useQuery({ queryKey: ["api-keys"], queryFn: () => client.account.listApiKeys() });
  const [name, setName] = useState("");
  const [access, setAccess] = useState<"full" | "limited">("full");
  const [created, setCreated] = useState<Awaited<ReturnType<Client["account"]["createApiKey"]>> | null>(null);
  const create = useMutation({
    mutationFn: () => client.account.createApiKey({ name, project_id: session.projectId, access }),
    onSuccess: (key) => {
      setCreated(key);
      setName("");
      return queries.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  // Revoking stops every agent using the key at once: the first click asks, the second revokes.
  const [confirming, setConfirming] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (prefix: string) => client.account.deleteApiKey({ prefix }),
    onSuccess: () => {
      setConfirming(null);
      return queries.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(null);
    create.mutate();
  };
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form onSubmit={submit} className="filters" aria-label="Create an API key">
        <label>
          Name
          <input required value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Access
          <select value={access} onChange={(event) => setAccess(event.target.value as typeof access)}>
            <option value="full">Full</option>
            <option value="limited">Limited</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key for {session.projectId}
        </button>
      </form>
      <ErrorNote error={create.error ?? keys.error ?? revoke.error} />
      {created && (
        <output className="card new-key">
          <p>
            <strong>Copy the key now: it is shown this once.</strong>
          </p>
          <label>
            Key “{created.name}”
            <input readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} data-testid="new-key" />
          </label>
        </output>
      )}
      <table>
        <caption className="muted">Live keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Project</th>
            <th scope="col">Access</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="sr-only">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.api_keys.map((key) => (
            <tr key={key.key_id}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>{key.project_id}</td>
              <td>{key.access}</td>
              <td>{formatTime(key.last_used_at)}</td>
              <td>
                {confirming === key.prefix ? (
                  <button type="button" className="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(key.prefix)}>
                    Confirm: revoke {key.name}
                  </button>
                ) : (
                  <button type="button" className="danger" onClick={() => setConfirming(key.prefix)} aria-label={`Revoke key ${key.name} (${key.prefix})`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
