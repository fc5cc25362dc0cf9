import { expect } from "bun:test";
import type { TestService } from "./service.ts";

/** Adds user playbooks through the API and returns their ids, in input order. */
export async function addUserPlaybooks(svc: TestService, playbooks: object[]): Promise<number[]> {
  const response = await svc.call("POST", "/api/add_user_playbook", { user_playbooks: playbooks });
  expect(response.status).toBe(200);
  return response.body.user_playbook_ids;
}

/** Adds agent playbooks through the API and returns their ids, in input order. */
export async function addAgentPlaybooks(svc: TestService, playbooks: object[]): Promise<number[]> {
  const response = await svc.call("POST", "/api/add_agent_playbook", { agent_playbooks: playbooks });
  expect(response.status).toBe(200);
  return response.body.agent_playbook_ids;
}

const ALL_STATUSES = ["CURRENT", "PENDING", "ARCHIVED"];
const ALL_APPROVALS = ["PENDING", "APPROVED", "REJECTED"];

/** Every stored user and agent playbook, whatever its statuses, as sorted JSON for before/after comparisons. */
export async function snapshotPlaybooks(svc: TestService): Promise<string> {
  const users = await svc.call("POST", "/api/get_user_playbooks", { status_filter: ALL_STATUSES, limit: 10000 });
  const agents = await svc.call("POST", "/api/get_agent_playbooks", { status_filter: ALL_STATUSES, playbook_status_filter: ALL_APPROVALS, limit: 10000 });
  return JSON.stringify([users.body.user_playbooks, agents.body.agent_playbooks]);
}

/** Sends a request that must be refused with 422 naming `field`, and checks that no playbook changed. */
export async function expectRejected(svc: TestService, method: string, path: string, body: unknown, field: string) {
  const before = await snapshotPlaybooks(svc);
  const response = await svc.call(method, path, body);
  expect(response.status).toBe(422);
  expect(response.body.error).toBe("validation_error");
  expect(response.body.message).toContain(field);
  expect(await snapshotPlaybooks(svc)).toBe(before);
  return response.body;
}

/** Requests both playbook searches refuse with 422, and the field the message must name. */
export const INVALID_SEARCHES: [object, string][] = [
  [{ query: 42 }, "query"],
  [{ query: "x", top_k: 0 }, "top_k"],
  [{ query: "x", top_k: 101 }, "top_k"],
  [{ query: "x", top_k: 2.5 }, "top_k"],
  [{ query: "x", threshold: 1.5 }, "threshold"],
  [{ query: "x", threshold: -0.1 }, "threshold"],
  [{ query: "x", search_mode: "semantic" }, "search_mode"],
  [{ query: "x", user_id: "u".repeat(256) }, "user_id"],
  [{ query: "x", source: "Has Space" }, "source"],
  [{ query: "x", status_filter: ["approved"] }, "status_filter[0]"],
  [{ query: "x", status_filter: [] }, "status_filter"],
  [{ query: "x", tags: "billing" }, "tags"],
  [{ query: "x", tags: [true] }, "tags[0]"],
  [{ query: "x", start_time: 9, end_time: 3 }, "end_time"],
  [{ query: "x", enable_reformulation: "yes" }, "enable_reformulation"],
];

/** Checks that `search` answers each bad request with 422 naming its field. */
export async function expectSearchRejections(search: (body: object) => Promise<{ status: number; body: any }>, cases: [object, string][]) {
  for (const [body, field] of cases) {
    const response = await search(body);
    expect({ body, status: response.status }).toEqual({ body, status: 422 });
    expect(response.body.message).toContain(field);
  }
}

/** Reformulation needs an LLM, which the server does not have yet: 501 naming the option. */
export async function expectReformulationRefused(search: (body: object) => Promise<{ status: number; body: any }>) {
  const response = await search({ query: "x", enable_reformulation: true });
  expect(response.status).toBe(501);
  expect(response.body.detail).toContain("enable_reformulation");
}
