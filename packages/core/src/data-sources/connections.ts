import { randomUUID } from "node:crypto";
import { AppError, CONNECTION_LIMIT, type Connection, credentialRules, type DataSourceProvider, type ExternalProjects, type FieldIssue } from "@als/contract";
import { type ConnectionRecord, dataSourceCollections, dataSourceSamples, dataSources, type Scope } from "@als/db";
import type { ProviderCredentials } from "@als/sources";
import type { CoreDeps } from "../deps.ts";
import { toConnection } from "./connection-view.ts";
import { sealCredentials } from "./credential-seal.ts";
import { discoverWith, providerFor, providerOfConnection } from "./provider-access.ts";
import { staleLifecycleRevision, staleRevision } from "./stale-revision.ts";

/** How long a connection stays a setup draft holding a slot without being activated. */
export const DRAFT_CONNECTION_SECONDS = 7 * 86_400;

export interface ConnectionInput extends ProviderCredentials {
  name: string;
  provider: DataSourceProvider;
  region: string;
}

/** A connection the project holds (live: not an expired draft); 404 otherwise. */
export async function liveConnection(deps: CoreDeps, scope: Scope, connectionId: string): Promise<ConnectionRecord> {
  const found = await dataSources.findConnection(deps.db, scope, connectionId, deps.now());
  if (!found) throw AppError.notFound(`connection '${connectionId}'`);
  return found;
}

/**
 * Connects a provider account: the credential must authenticate (discovery) before anything is
 * stored; then, sealed, it takes one of the project's CONNECTION_LIMIT slots as a setup draft.
 */
export async function createConnection(deps: CoreDeps, scope: Scope, input: ConnectionInput): Promise<Connection> {
  const credentials = credentialsOf(input);
  await discoverWith(providerFor(deps, input.provider, input.region, credentials), "sent");
  const connectionId = `dsc_${randomUUID()}`;
  const now = deps.now();
  const record: ConnectionRecord = {
    connection_id: connectionId,
    name: input.name,
    provider: input.provider,
    region: input.region,
    sealed_credentials: await sealCredentials(deps, connectionId, credentials),
    workspace_id: input.workspace_id ?? null,
    revision: 1,
    created_at: now,
    updated_at: now,
    draft_expires_at: now + DRAFT_CONNECTION_SECONDS,
  };
  await deps.db.transaction(async (tx) => {
    await dataSources.lockProjectConnections(tx, scope);
    await dataSources.deleteExpiredDrafts(tx, scope, now);
    const inUse = await dataSources.countLiveConnections(tx, scope, now);
    if (inUse >= CONNECTION_LIMIT) {
      throw new AppError("conflict", `the project holds ${inUse} connections, the limit (setup drafts included): delete one before connecting another`);
    }
    await dataSources.insertConnection(tx, scope, record);
  });
  return toConnection(record, undefined);
}

export async function getConnection(deps: CoreDeps, scope: Scope, connectionId: string): Promise<Connection> {
  const connection = await liveConnection(deps, scope, connectionId);
  return toConnection(connection, await dataSources.findStreamOfConnection(deps.db, scope, connectionId));
}

/** The external projects the connection's stored credential reaches (a provider read). */
export async function discoverConnectionProjects(deps: CoreDeps, scope: Scope, connectionId: string): Promise<ExternalProjects> {
  const connection = await liveConnection(deps, scope, connectionId);
  const projects = await discoverWith(await providerOfConnection(deps, connection), "stored");
  return { connection_id: connectionId, provider: connection.provider as DataSourceProvider, region: connection.region, projects };
}

/**
 * Replaces the credential (rule 2): the new one must reach the selected external project, if one
 * is selected, else simply authenticate. Advances the connection revision and invalidates the
 * stream's retained samples.
 */
export async function rotateCredential(
  deps: CoreDeps,
  scope: Scope,
  input: ProviderCredentials & { connection_id: string; revision: number },
): Promise<Connection> {
  const connection = await liveConnection(deps, scope, input.connection_id);
  const provider = connection.provider as DataSourceProvider;
  const issues: FieldIssue[] = [];
  credentialRules(provider, input, { addIssue: (issue) => issues.push({ loc: ["body", ...issue.path], msg: issue.message, type: "value_error" }) });
  if (issues.length > 0) throw AppError.validation(issues);
  if (connection.revision !== input.revision) throw staleRevision("connection", input.connection_id, connection.revision, input.revision);
  const stream = await dataSources.findStreamOfConnection(deps.db, scope, input.connection_id);
  const credentials = credentialsOf(input);
  const projects = await discoverWith(providerFor(deps, provider, connection.region, credentials), "sent");
  const selected = stream && projects.find((project) => project.id === stream.external_project_id);
  if (stream && !selected) {
    throw AppError.validation([
      {
        loc: ["body", "api_key"],
        msg: `the new credential does not reach the selected external project ${stream.external_project_id}`,
        type: "project_unreachable",
      },
    ]);
  }
  const sealed = await sealCredentials(deps, input.connection_id, credentials);
  const updated = await deps.db.transaction(async (tx) => {
    const advanced = await dataSources.advanceConnection(tx, scope, input.connection_id, input.revision, {
      sealed_credentials: sealed,
      workspace_id: selected?.workspace_id ?? input.workspace_id ?? null,
      updated_at: deps.now(),
    });
    // Evidence read with the old credential is not evidence for the new one (rule 2).
    if (advanced && stream) await dataSourceSamples.invalidateStreamSamples(tx, scope, stream.stream_id, deps.now());
    return advanced;
  });
  if (!updated) throw await currentRevisionConflict(deps, scope, input.connection_id, input.revision);
  // A collection stopped by the provider's refusal of the old credential reads again now.
  for (const streamId of await dataSourceCollections.wakeConnectionCollections(deps.db, scope, input.connection_id, deps.now())) {
    await deps.orchestrator?.schedule("collection", scope, streamId);
  }
  return toConnection(updated, stream);
}

/**
 * Deletes a connection read at `revision` (rule 3): its sealed credential, configuration and stream
 * go; interactions it imported stay, and the provider's traces are not touched.
 */
export async function deleteConnection(
  deps: CoreDeps,
  scope: Scope,
  input: { connection_id: string; revision: number; lifecycle_revision?: number | undefined },
): Promise<{ deleted: true }> {
  await liveConnection(deps, scope, input.connection_id);
  const deleted = await deps.db.transaction(async (tx) => {
    // An activated stream's collection stops with it: the lock waits for an import in its
    // transaction, and the collection's next import finds it gone (its step then ends).
    const stream = await dataSources.findStreamOfConnection(tx, scope, input.connection_id);
    const lifecycle = stream && (await dataSourceCollections.lockCollection(tx, scope, stream.stream_id));
    if (lifecycle !== undefined && lifecycle !== null) {
      if (input.lifecycle_revision === undefined) {
        throw AppError.validation([
          { loc: ["body", "lifecycle_revision"], msg: `the connection's stream is activated: send its lifecycle_revision (${lifecycle})`, type: "missing" },
        ]);
      }
      if (input.lifecycle_revision !== lifecycle) throw staleLifecycleRevision(stream!.stream_id, lifecycle, input.lifecycle_revision);
    }
    return dataSources.deleteConnection(tx, scope, input.connection_id, input.revision);
  });
  if (!deleted) throw await currentRevisionConflict(deps, scope, input.connection_id, input.revision);
  return { deleted: true };
}

/** The 409 of a write whose revision moved under it, or the 404 of a connection deleted meanwhile. */
export async function currentRevisionConflict(deps: CoreDeps, scope: Scope, connectionId: string, expected: number): Promise<AppError> {
  const current = await liveConnection(deps, scope, connectionId);
  return staleRevision("connection", connectionId, current.revision, expected);
}

function credentialsOf(input: ProviderCredentials): ProviderCredentials {
  return { api_key: input.api_key, ...(input.public_key && { public_key: input.public_key }), ...(input.workspace_id && { workspace_id: input.workspace_id }) };
}

/** After activation the selection is fixed (provider, region, external project, workspace, history): a change answers 409. */
export async function refuseWhenActivated(deps: CoreDeps, scope: Scope, connectionId: string, what: string): Promise<void> {
  const stream = await dataSources.findStreamOfConnection(deps.db, scope, connectionId);
  if (stream && (await dataSourceCollections.findCollection(deps.db, scope, stream.stream_id))) {
    throw new AppError("conflict", `the stream of connection ${connectionId} is activated: ${what} can no longer change`);
  }
}
