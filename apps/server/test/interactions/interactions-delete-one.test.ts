import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublishInteractionRequest } from "@als/contract";
import { getInteractions, publishInteractions } from "@als/core";
import { LOCAL_SCOPE, type Scope } from "@als/db";
import { registerProject } from "@als/test-support/register-project.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// DELETE /api/delete_interaction: one interaction of one user, nothing else.

let svc: TestService;
const OTHER_PROJECT: Scope = { orgId: LOCAL_SCOPE.orgId, projectId: "other" };

beforeAll(async () => {
  svc = await startTestService();
  await registerProject(svc.db, OTHER_PROJECT);
});
afterAll(() => svc.close());

const interactionsOf = async (userId: string, scope: Scope = LOCAL_SCOPE) =>
  (await getInteractions(svc.deps, scope, { user_id: userId, top_k: 100 })).map((i) => ({ id: i.interaction_id, content: i.content }));

async function publish(userId: string, contents: string[], scope: Scope = LOCAL_SCOPE) {
  const request = PublishInteractionRequest.parse({ user_id: userId, session_id: "s", interaction_data_list: contents.map((content) => ({ content })) });
  const published = await publishInteractions(svc.deps, scope, request);
  return published.interactionIds;
}

describe("delete_interaction", () => {
  test("deletes the one interaction of the user, and nothing else", async () => {
    const [keep, doomed] = (await publish("ana", ["keep me", "delete me"])) as [number, number];
    const response = await svc.call("DELETE", "/api/delete_interaction", { user_id: "ana", interaction_id: doomed });
    expect(response).toEqual({ status: 200, body: { success: true, message: expect.stringContaining(String(doomed)) } });
    expect(await interactionsOf("ana")).toEqual([{ id: keep, content: "keep me" }]);
    // The request keeps its other interaction.
    expect((await svc.client.requests.get({ user_id: "ana" })).sessions[0]!.requests[0]!.interactions.map((i) => i.content)).toEqual(["keep me"]);
  });

  test("an interaction that is not there, or is another user's, is a 404 and nothing changes", async () => {
    const [bens] = (await publish("ben", ["ben's turn"])) as [number];
    const before = await interactionsOf("ben");
    for (const body of [
      { user_id: "ana", interaction_id: bens },
      { user_id: "ben", interaction_id: 987654321 },
    ]) {
      const response = await svc.call("DELETE", "/api/delete_interaction", body);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ error: "not_found" });
    }
    expect(await interactionsOf("ben")).toEqual(before);
  });

  test("another project's interaction is never touched (404)", async () => {
    const [elsewhere] = (await publish("ana", ["in another project"], OTHER_PROJECT)) as [number];
    const response = await svc.call("DELETE", "/api/delete_interaction", { user_id: "ana", interaction_id: elsewhere });
    expect(response.status).toBe(404);
    expect(await interactionsOf("ana", OTHER_PROJECT)).toEqual([{ id: elsewhere, content: "in another project" }]);
  });

  test("bad input is a 422 naming the field, and nothing is deleted", async () => {
    const before = await interactionsOf("ben");
    for (const [body, field] of [
      [{ interaction_id: 1 }, "user_id"],
      [{ user_id: "", interaction_id: 1 }, "user_id"],
      [{ user_id: "ben" }, "interaction_id"],
      [{ user_id: "ben", interaction_id: 0 }, "interaction_id"],
      [{ user_id: "ben", interaction_id: "1" }, "interaction_id"],
      [{ user_id: "ben", interaction_id: 1.5 }, "interaction_id"],
      [{ user_id: "ben", interaction_id: 1, request_id: "r" }, "request_id"],
    ] as const) {
      const response = await svc.call("DELETE", "/api/delete_interaction", body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
    expect(await interactionsOf("ben")).toEqual(before);
  });

  test("the typed client serves it as interactions.delete", async () => {
    const [doomed] = (await publish("cy", ["typed"])) as [number];
    expect(await svc.client.interactions.delete({ user_id: "cy", interaction_id: doomed })).toMatchObject({ success: true });
    expect(await interactionsOf("cy")).toEqual([]);
  });
});
