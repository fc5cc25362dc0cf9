import { defineResource } from "../endpoint.ts";
import {
  ListPendingToolCallsRequest,
  NotApplicableRequest,
  PendingToolCall,
  PendingToolCallList,
  PendingToolCallPath,
  ResolvePendingToolCallRequest,
  UpdateAnswerRequest,
} from "../human-questions.ts";

export const humanQuestionsEndpoints = defineResource("humanQuestions", {
  list: {
    method: "GET",
    path: "/api/pending_tool_calls",
    summary: "Questions extraction runs asked a person, newest first; all statuses unless one is given",
    input: ListPendingToolCallsRequest,
    output: PendingToolCallList,
  },
  get: {
    method: "GET",
    path: "/api/pending_tool_calls/:pending_tool_call_id",
    summary: "One question (404 when unknown or another project's)",
    input: PendingToolCallPath,
    output: PendingToolCall,
  },
  resolve: {
    method: "POST",
    path: "/api/pending_tool_calls/:pending_tool_call_id/resolve",
    summary: "Answer a pending question (exactly one of answer or result); the runs waiting on it resume. 409 unless pending",
    input: ResolvePendingToolCallRequest,
    output: PendingToolCall,
    errors: ["conflict"],
  },
  updateAnswer: {
    method: "PATCH",
    path: "/api/pending_tool_calls/:pending_tool_call_id/answer",
    summary: "Change the answer of a resolved question; runs still waiting on it use the new one. 409 unless resolved",
    input: UpdateAnswerRequest,
    output: PendingToolCall,
    errors: ["conflict"],
  },
  notApplicable: {
    method: "POST",
    path: "/api/pending_tool_calls/:pending_tool_call_id/not_applicable",
    summary: "Resolve a pending question as not applicable (result {not_applicable: true}); its runs go on without an answer. 409 unless pending",
    input: NotApplicableRequest,
    output: PendingToolCall,
    errors: ["conflict"],
  },
  cancel: {
    method: "POST",
    path: "/api/pending_tool_calls/:pending_tool_call_id/cancel",
    summary: "Cancel a pending question; its runs go on without it. 409 unless pending",
    input: PendingToolCallPath,
    output: PendingToolCall,
    errors: ["conflict"],
  },
});
