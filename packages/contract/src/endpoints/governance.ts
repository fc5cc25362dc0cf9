import { z } from "zod";
import { defineResource } from "../endpoint.ts";
import { GovernanceSubjectRequest, PurgeOperationQuery, PurgeOperationStatus, StreamPurgeRequest, UserEraseResult, UserExportBundle } from "../governance.ts";

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
  // The stream-scoped erasure routes of data sources (both prefixes): they answer 501 until streams
  // import (activation), then run the same operation as erase-user with the stream's staging in scope.
  streamPurgePreview: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/purge-preview",
    summary: "Estimated counts and scope of erasing a user through a data-source stream; erases nothing (501 until streams import)",
    input: StreamPurgeRequest,
    output: UserEraseResult,
    credentials: ["governance_session"],
    errors: ["not_implemented"],
  },
  streamPurgeUser: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/purge-user",
    summary: "Erase a user through a data-source stream (501 until streams import)",
    input: StreamPurgeRequest,
    output: UserEraseResult,
    credentials: ["governance_session"],
    errors: ["not_implemented"],
  },
  projectStreamPurgePreview: {
    method: "POST",
    path: "/api/projects/:project_id/data-sources/streams/:stream_id/purge-preview",
    summary: "Estimated counts and scope of erasing a user through a data-source stream; erases nothing (501 until streams import)",
    input: StreamPurgeRequest.extend({ project_id: z.string().min(1).max(255) }),
    output: UserEraseResult,
    credentials: ["governance_session"],
    projectPathParam: "project_id",
    errors: ["not_implemented"],
  },
  projectStreamPurgeUser: {
    method: "POST",
    path: "/api/projects/:project_id/data-sources/streams/:stream_id/purge-user",
    summary: "Erase a user through a data-source stream (501 until streams import)",
    input: StreamPurgeRequest.extend({ project_id: z.string().min(1).max(255) }),
    output: UserEraseResult,
    credentials: ["governance_session"],
    projectPathParam: "project_id",
    errors: ["not_implemented"],
  },
});
