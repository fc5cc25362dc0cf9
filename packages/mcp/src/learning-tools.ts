import type { Client } from "@als/client";
import { type Endpoint, endpoints } from "@als/contract";

/**
 * One MCP tool: an endpoint of the contract offered to agents under a name of their vocabulary.
 * Its description and input schema are the endpoint's own, and `call` is the typed client's method,
 * so the tool answers exactly what the REST endpoint answers, with the same credentials.
 */
export interface LearningTool {
  name: string;
  endpoint: Endpoint;
  /** Reads only: an MCP client may call it without asking its user. */
  readOnly: boolean;
  call(client: Client, input: unknown): Promise<unknown>;
}

// The client's methods take each endpoint's own input type; the MCP server has already parsed the
// arguments through that endpoint's schema, so they are passed on as they are.
type AnyInput = never;

/** What an agent needs of its memory: find learnings, read a user's, record a session and its outcome, answer questions. */
export const LEARNING_TOOLS: readonly LearningTool[] = [
  {
    name: "search_learnings",
    endpoint: endpoints.search.unified,
    readOnly: true,
    call: (client, input) => client.search.unified(input as AnyInput),
  },
  {
    name: "get_user_profiles",
    endpoint: endpoints.profiles.get,
    readOnly: true,
    call: (client, input) => client.profiles.get(input as AnyInput),
  },
  {
    name: "get_user_playbooks",
    endpoint: endpoints.userPlaybooks.get,
    readOnly: true,
    call: (client, input) => client.userPlaybooks.get(input as AnyInput),
  },
  {
    name: "publish_interactions",
    endpoint: endpoints.interactions.publish,
    readOnly: false,
    call: (client, input) => client.interactions.publish(input as AnyInput),
  },
  {
    name: "report_session_outcome",
    endpoint: endpoints.outcomes.record,
    readOnly: false,
    call: (client, input) => client.outcomes.record(input as AnyInput),
  },
  {
    name: "list_pending_questions",
    endpoint: endpoints.humanQuestions.list,
    readOnly: true,
    call: (client, input) => client.humanQuestions.list(input as AnyInput),
  },
  {
    name: "answer_pending_question",
    endpoint: endpoints.humanQuestions.resolve,
    readOnly: false,
    call: (client, input) => client.humanQuestions.resolve(input as AnyInput),
  },
];
