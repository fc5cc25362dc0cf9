import { BulkDeleteResponse, NoInput, SuccessMessageResponse } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  AddUserPlaybookRequest,
  AddUserPlaybookResponse,
  DeleteUserPlaybookRequest,
  DeleteUserPlaybooksByIdsRequest,
  GetUserPlaybooksRequest,
  SearchUserPlaybooksRequest,
  UpdateUserPlaybookRequest,
  UserPlaybooksResponse,
} from "../playbooks.ts";
import { ReviewUserPlaybooksRequest, ReviewUserPlaybooksResponse } from "../review.ts";

export const userPlaybooksEndpoints = defineResource("userPlaybooks", {
  deleteAll: {
    method: "DELETE",
    path: "/api/delete_all_user_playbooks",
    summary: "Delete every user playbook of the project",
    input: NoInput,
    output: BulkDeleteResponse,
  },
  delete: {
    method: "DELETE",
    path: "/api/delete_user_playbook",
    summary: "Delete one user playbook (404 when unknown)",
    input: DeleteUserPlaybookRequest,
    output: SuccessMessageResponse,
    errors: ["not_found"],
  },
  deleteByIds: {
    method: "DELETE",
    path: "/api/delete_user_playbooks_by_ids",
    summary: "Delete user playbooks by id; unknown ids are not counted",
    input: DeleteUserPlaybooksByIdsRequest,
    output: BulkDeleteResponse,
  },
  update: {
    method: "PUT",
    path: "/api/update_user_playbook",
    summary: "Change the name, content, trigger or rationale of a user playbook",
    input: UpdateUserPlaybookRequest,
    output: SuccessMessageResponse,
    errors: ["not_found", "conflict", "embedding_unavailable"],
  },
  search: {
    method: "POST",
    path: "/api/search_user_playbooks",
    summary: "Search user playbooks: vector, fts or hybrid (score fusion of both arms, the default); CURRENT and PENDING unless filtered",
    input: SearchUserPlaybooksRequest,
    output: UserPlaybooksResponse,
    errors: ["embedding_unavailable", "not_implemented", "llm_unavailable", "overloaded"],
    rateClass: "search",
  },
  add: {
    method: "POST",
    path: "/api/add_user_playbook",
    summary: "Add user playbooks (each needs user_id and a content or trigger); returns their new ids in input order",
    input: AddUserPlaybookRequest,
    output: AddUserPlaybookResponse,
    errors: ["embedding_unavailable", "erasure_in_progress"],
    idempotencyKey: true,
  },
  get: {
    method: "POST",
    path: "/api/get_user_playbooks",
    summary: "User playbooks of any status unless filtered, newest first; query is a case-insensitive text filter",
    input: GetUserPlaybooksRequest,
    output: UserPlaybooksResponse,
  },
  review: {
    method: "POST",
    path: "/api/review_user_playbooks",
    summary: "Review the current user playbooks created in a time range: report decisions inline, or apply them in the background",
    input: ReviewUserPlaybooksRequest,
    output: ReviewUserPlaybooksResponse,
    errors: ["llm_unavailable"],
    // Report mode decides every playbook inline, one LLM call each: the contract's extended synchronous timeout.
    timeoutMs: 300_000,
  },
});
