import { randomUUID } from "node:crypto";
import { AppError, type DataSourceProvider, type Stream, type TrafficFilter } from "@als/contract";
import { dataSources, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { toStream } from "./connection-view.ts";
import { currentRevisionConflict, liveConnection, refuseWhenActivated } from "./connections.ts";
import { discoverWith, providerOfConnection } from "./provider-access.ts";
import { staleRevision } from "./stale-revision.ts";

/**
 * Selects the connection's external project and its traffic filters (rule 1): the project must be
 * one discovery finds, whose workspace the connection takes. Advances the connection revision, and
 * the stream's when it existed (its samples were of the old selection).
 */
export async function selectStream(
  deps: CoreDeps,
  scope: Scope,
  input: { connection_id: string; revision: number; external_project_id: string; filters: TrafficFilter[] },
): Promise<Stream> {
  const connection = await liveConnection(deps, scope, input.connection_id);
  if (connection.revision !== input.revision) throw staleRevision("connection", input.connection_id, connection.revision, input.revision);
  await refuseWhenActivated(deps, scope, input.connection_id, "its external project and filters (edit live filters with PUT .../traffic-filters)");
  const projects = await discoverWith(await providerOfConnection(deps, connection), "stored");
  const project = projects.find((candidate) => candidate.id === input.external_project_id);
  if (!project) {
    throw AppError.validation([
      {
        loc: ["body", "external_project_id"],
        msg: `the connection's credential does not reach external project '${input.external_project_id}'`,
        type: "value_error",
      },
    ]);
  }
  const now = deps.now();
  const stream = await deps.db.transaction(async (tx) => {
    const advanced = await dataSources.advanceConnection(tx, scope, input.connection_id, input.revision, {
      workspace_id: project.workspace_id,
      updated_at: now,
    });
    if (!advanced) return undefined;
    return dataSources.saveStream(tx, scope, {
      stream_id: `dss_${randomUUID()}`,
      connection_id: input.connection_id,
      external_project_id: project.id,
      external_project_name: project.name,
      workspace_id: project.workspace_id,
      filters: input.filters,
      created_at: now,
      updated_at: now,
    });
  });
  if (!stream) throw await currentRevisionConflict(deps, scope, input.connection_id, input.revision);
  return toStream(stream, connection.provider as DataSourceProvider);
}
