import { z } from "zod";
import { defineResource } from "../endpoint.ts";
import {
  GovernanceSubjectRequest,
  PurgeOperationQuery,
  PurgeOperationStatus,
  StreamPurgePreview,
  StreamPurgeRequest,
  UserEraseResult,
  UserExportBundle,
} from "../governance.ts";

// Governance needs a governance session of an admin or owner whose organisation holds the
// entitlement (contract: Authentication 5); API keys are refused. X-Service-Project selects the project.
export const governanceEndpoints = defineResource("governance", {
  exportUser: {
    method: "POST",
    path: "/api/governance/export-user",
    summary: "Everything the service holds about a user in this project, as one JSON bundle streamed section by section; audited",
    input: GovernanceSubjectRequest,
    output: UserExportBundle,
    credentials: ["governance_session"],
    timeoutMs: 600_000,
  },
  eraseUser: {
    method: "POST",
    path: "/api/governance/erase-user",
    summary:
      "Erase a user from this project (202 with the purge operation; idempotent on user_id and request_id, also after completion); writes of the user are refused (409 erasure_in_progress) until it completes",
    input: GovernanceSubjectRequest,
    output: UserEraseResult,
    successStatus: 202,
    credentials: ["governance_session"],
  },
  getPurgeOperation: {
    method: "GET",
    path: "/api/governance/purge-operations/:purge_id",
    summary: "The minimized status of a purge operation (404 when unknown or another organisation's)",
    input: PurgeOperationQuery,
    output: PurgeOperationStatus,
    credentials: ["governance_session"],
  },
  // The stream-scoped erasure routes of data sources (both prefixes): the same operation as
  // erase-user (its steps remove this project's data-source staging and samples of the user, and
  // keep import receipts as suppressions without the user); the stream must be one of the project's.
  streamPurgePreview: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/purge-preview",
    summary: "Estimated counts and scope of erasing a user through a data-source stream; erases nothing (404 for an unknown stream)",
    input: StreamPurgeRequest,
    output: StreamPurgePreview,
    credentials: ["governance_session"],
  },
  streamPurgeUser: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/purge-user",
    summary:
      "Erase a user through a data-source stream (202): the erase-user operation, idempotent on user_id and request_id, removing this project's staging and samples of the user (404 for an unknown stream)",
    input: StreamPurgeRequest,
    output: UserEraseResult,
    successStatus: 202,
    credentials: ["governance_session"],
  },
  projectStreamPurgePreview: {
    method: "POST",
    path: "/api/projects/:project_id/data-sources/streams/:stream_id/purge-preview",
    summary: "Estimated counts and scope of erasing a user through a data-source stream; erases nothing (404 for an unknown stream)",
    input: StreamPurgeRequest.extend({ project_id: z.string().min(1).max(255) }),
    output: StreamPurgePreview,
    credentials: ["governance_session"],
    projectPathParam: "project_id",
  },
  projectStreamPurgeUser: {
    method: "POST",
    path: "/api/projects/:project_id/data-sources/streams/:stream_id/purge-user",
    summary:
      "Erase a user through a data-source stream (202): the erase-user operation, idempotent on user_id and request_id, removing this project's staging and samples of the user (404 for an unknown stream)",
    input: StreamPurgeRequest.extend({ project_id: z.string().min(1).max(255) }),
    output: UserEraseResult,
    successStatus: 202,
    credentials: ["governance_session"],
    projectPathParam: "project_id",
  },
});
