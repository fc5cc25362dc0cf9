import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { addAgentPlaybooks, addUserPlaybooks, expectRejected } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService | undefined;
let users: number[];
let agents: number[];
beforeEach(async () => {
  await svc?.close();
  svc = await startTestService();
  users = await addUserPlaybooks(svc, [
    { user_id: "lea", content: "Use formal language" },
    { user_id: "lea", content: "Avoid jargon", status: "ARCHIVED" },
    { user_id: "max", content: "Offer a callback" },
  ]);
  agents = await addAgentPlaybooks(svc, [
    { content: "Be formal", playbook_status: "APPROVED", source_user_playbook_ids: [users[0]] },
    { content: "Offer callbacks", source_user_playbook_ids: [users[2]] },
  ]);
});
afterAll(() => svc?.close());

const remainingUsers = async () => (await svc!.client.userPlaybooks.get({})).user_playbooks.map((p) => p.user_playbook_id).sort((a, b) => a - b);
const remainingAgents = async () =>
  (await svc!.client.agentPlaybooks.get({ playbook_status_filter: ["PENDING", "APPROVED", "REJECTED"] })).agent_playbooks.map((p) => ({
    id: p.agent_playbook_id,
    sources: p.source_user_playbook_ids,
  }));

describe("delete by ids", () => {
  test("delete_user_playbooks_by_ids counts only what existed", async () => {
    const deleted = await svc!.client.userPlaybooks.deleteByIds({ user_playbook_ids: [users[0]!, users[1]!, 99999] });
    expect(deleted).toEqual({ success: true, deleted_count: 2, message: "Deleted 2 item(s)" });
    expect(await remainingUsers()).toEqual([users[2]!]);
    expect((await remainingAgents()).find((a) => a.id === agents[0])).toEqual({ id: agents[0]!, sources: [] });
  });
  test("delete_agent_playbooks_by_ids counts only what existed and keeps the sources", async () => {
    const deleted = await svc!.client.agentPlaybooks.deleteByIds({ agent_playbook_ids: [agents[1]!, 99999] });
    expect(deleted).toEqual({ success: true, deleted_count: 1, message: "Deleted 1 item(s)" });
    expect((await remainingAgents()).map((a) => a.id)).toEqual([agents[0]!]);
    expect(await remainingUsers()).toEqual(users);
  });
  test.each([
    ["/api/delete_user_playbooks_by_ids", {}, "user_playbook_ids"],
    ["/api/delete_user_playbooks_by_ids", { user_playbook_ids: [] }, "user_playbook_ids"],
    ["/api/delete_user_playbooks_by_ids", { user_playbook_ids: [1, "2"] }, "user_playbook_ids[1]"],
    ["/api/delete_agent_playbooks_by_ids", { agent_playbook_ids: [] }, "agent_playbook_ids"],
    ["/api/delete_agent_playbooks_by_ids", { agent_playbook_ids: [0] }, "agent_playbook_ids[0]"],
  ])("422 for %s %j names %s", (path, body, field) => expectRejected(svc!, "DELETE", path, body, field).then(() => {}));
});

describe("delete all", () => {
  test("delete_all_user_playbooks removes every status; agent playbooks stay, unlinked", async () => {
    expect(await svc!.client.userPlaybooks.deleteAll()).toEqual({ success: true, deleted_count: 3, message: "Deleted 3 item(s)" });
    expect(await remainingUsers()).toEqual([]);
    expect(await remainingAgents()).toEqual([
      { id: agents[1]!, sources: [] },
      { id: agents[0]!, sources: [] },
    ]);
  });
  test("delete_all_agent_playbooks removes every approval state; user playbooks stay", async () => {
    expect(await svc!.client.agentPlaybooks.deleteAll()).toEqual({ success: true, deleted_count: 2, message: "Deleted 2 item(s)" });
    expect(await remainingAgents()).toEqual([]);
    expect(await remainingUsers()).toEqual(users);
  });
  test("delete_all_playbooks removes user and agent playbooks and counts both", async () => {
    expect(await svc!.client.playbooks.deleteAll()).toEqual({ success: true, deleted_count: 5, message: "Deleted 5 item(s)" });
    expect(await remainingUsers()).toEqual([]);
    expect(await remainingAgents()).toEqual([]);
    expect((await svc!.client.playbooks.deleteAll()).deleted_count).toBe(0);
  });
  test.each([
    ["/api/delete_all_user_playbooks"],
    ["/api/delete_all_agent_playbooks"],
    ["/api/delete_all_playbooks"],
  ])("%s rejects a body with fields and deletes nothing", (path) => expectRejected(svc!, "DELETE", path, { user_id: "lea" }, "user_id").then(() => {}));
});
