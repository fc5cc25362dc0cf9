import type { Client } from "@als/client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ConfirmAction } from "./confirm-action.tsx";
import { CredentialFields, filledCredentials, type ProviderCapability } from "./credential-fields.tsx";
import { ErrorNote } from "./error-note.tsx";
import { useMember } from "./session.tsx";

type Connection = Awaited<ReturnType<Client["projectDataSources"]["getConnection"]>>;

/**
 * A connection's credential rotation (the next step when the provider refuses the key) and its
 * deletion. Both read the connection again first: its revision moves with every rotation and selection.
 */
export function ConnectionSettings({ connection, provider }: { connection: Connection; provider: ProviderCapability }) {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const scope = { project_id: session.projectId, connection_id: connection.connection_id };
  const [rotating, setRotating] = useState(false);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const refresh = () => queries.invalidateQueries({ queryKey: ["data-sources"] });
  const rotate = useMutation({
    mutationFn: async () => {
      const current = await client.projectDataSources.getConnection(scope);
      return client.projectDataSources.rotateCredential({ ...scope, revision: current.revision, ...filledCredentials(provider, secrets) });
    },
    onSettled: () => setSecrets({}),
    onSuccess: async () => {
      setRotating(false);
      await Promise.all([refresh(), queries.invalidateQueries({ queryKey: ["collection", session.projectId] })]);
    },
  });
  const remove = useMutation({
    mutationFn: async () => {
      const current = await client.projectDataSources.getConnection(scope);
      const lifecycle =
        current.status === "activated" && current.stream_id
          ? (await client.projectDataSources.status({ project_id: session.projectId, stream_id: current.stream_id })).lifecycle_revision
          : undefined;
      return client.projectDataSources.deleteConnection({
        ...scope,
        revision: current.revision,
        ...(lifecycle !== undefined && { lifecycle_revision: lifecycle }),
      });
    },
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rotate.mutate();
  };
  return (
    <>
      {rotating ? (
        <form className="stack" onSubmit={submit} aria-label={`New credentials for ${connection.name}`}>
          <CredentialFields provider={provider} values={secrets} onChange={setSecrets} />
          <p className="muted">The new key must reach the selected project; a retained sample is no longer evidence after a rotation.</p>
          <div className="actions">
            <button type="submit" className="primary" disabled={rotate.isPending}>
              Replace the credentials
            </button>
            <button type="button" onClick={() => setRotating(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button type="button" onClick={() => setRotating(true)}>
            Rotate the credentials of {connection.name}
          </button>
          <ConfirmAction
            label={`Delete ${connection.name}`}
            confirmLabel={`Confirm: delete ${connection.name} (imported conversations stay)`}
            pending={remove.isPending}
            onConfirm={() => remove.mutate()}
            danger
          />
        </div>
      )}
      <ErrorNote error={rotate.error ?? remove.error} />
    </>
  );
}
