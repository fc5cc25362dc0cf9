import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublishInteractionRequest } from "@als/contract";
import { finalizeSession, publishInteractions, runLearningStep } from "@als/core";
import { LOCAL_SCOPE, learning, type Scope } from "@als/db";
import { registerProject } from "@als/test-support/register-project.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// The contract's completion hint (publish semantics 3): POST /api/finalize_session, and publish's
// session_finished. A session's last, short window is due at once instead of after the six-hour
// inactivity deadline; the hint is stored, so whoever runs learning next (another process after a
// restart, a Temporal worker) sees it.

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
const OTHER_PROJECT: Scope = { orgId: LOCAL_SCOPE.orgId, projectId: "other" };

beforeAll(async () => {
  llm = await startScriptedLlm();
  svc = await startTestService({ llm: llm.llm });
  await registerProject(svc.db, OTHER_PROJECT);
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const turn = (content: string) => ({ role: "User", content });
async function publish(body: object) {
  const response = await svc.call("POST", "/api/publish_interaction", body);
  expect(response.status).toBe(200);
  return response.body as { request_id: string; warnings: string[] };
}
const finalize = (body: object) => svc.call("POST", "/api/finalize_session", body);
const statusOf = async (requestId: string) => (await svc.call("GET", `/api/learning_status?request_id=${requestId}`)).body.status as string;
const profilesOf = async (userId: string) => (await svc.client.profiles.get({ user_id: userId })).user_profiles.map((p) => p.content);

describe("finalize_session", () => {
  test("the session's short window is learned now instead of after the inactivity deadline", async () => {
    const published = await publish({ user_id: "ana", session_id: "trip", interaction_data_list: [turn("I am vegan")] });
    await svc.learningIdle();
    expect(await statusOf(published.request_id)).toBe("pending");

    const response = await finalize({ user_id: "ana", session_id: "trip" });
    expect(response).toEqual({ status: 200, body: { success: true, accepted: true, message: expect.any(String), request_id: published.request_id } });
    await svc.learningIdle();
    expect(await statusOf(published.request_id)).toBe("done");
    expect(await profilesOf("ana")).toEqual(["Is vegan"]);
  });

  test("the hint goes to the user's latest request of the session, and later publishes are still accepted", async () => {
    await publish({ user_id: "bo", session_id: "chat", interaction_data_list: [turn("Hello")] });
    const latest = await publish({ user_id: "bo", session_id: "chat", interaction_data_list: [turn("I have a golden retriever")] });
    await publish({ user_id: "bo", session_id: "elsewhere", interaction_data_list: [turn("Unrelated")] });
    expect((await finalize({ user_id: "bo", session_id: "chat" })).body).toMatchObject({ accepted: true, request_id: latest.request_id });
    await svc.learningIdle();
    expect(await statusOf(latest.request_id)).toBe("done");
    const after = await publish({ user_id: "bo", session_id: "chat", interaction_data_list: [turn("One more thing")] });
    await svc.learningIdle();
    expect(await statusOf(after.request_id)).toBe("pending");
  });

  test("the hint is stored: a learning step that was never told (another process) finds the window due", async () => {
    const published = await publish({ user_id: "cy", session_id: "s", interaction_data_list: [turn("I am in Lisbon this week")] });
    await svc.learningIdle();
    const untold = { ...svc.deps, orchestrator: undefined };
    expect(await finalizeSession(untold, LOCAL_SCOPE, "cy", "s")).toEqual({ accepted: true, requestId: published.request_id });
    const [cursor] = await learning.readCursors(svc.db, LOCAL_SCOPE, "cy");
    expect((await learning.pendingSummary(svc.db, LOCAL_SCOPE, "cy", cursor!.covered_seq)).forced).toBe(true);
    expect(await runLearningStep(svc.deps, LOCAL_SCOPE, "cy")).toEqual({ next: "again" });
    expect(await statusOf(published.request_id)).toBe("done");
    expect(await profilesOf("cy")).toEqual(["Is in Lisbon this week"]);
  });

  test("a session without a request of the user that learning reads is not accepted, and nothing changes", async () => {
    await publish({ user_id: "dee", session_id: "eval", evaluation_only: true, interaction_data_list: [turn("I am vegan")] });
    await publish({ user_id: "eve", session_id: "theirs", interaction_data_list: [turn("I am vegan")] });
    for (const body of [
      { user_id: "dee", session_id: "no-such-session" },
      { user_id: "dee", session_id: "eval" },
      { user_id: "dee", session_id: "theirs" },
    ]) {
      expect((await finalize(body)).body).toEqual({ success: true, accepted: false, message: expect.any(String), request_id: null });
    }
    await svc.learningIdle();
    expect(await profilesOf("eve")).toEqual([]);
  });

  test("another project's session is never touched", async () => {
    const request = PublishInteractionRequest.parse({ user_id: "fay", session_id: "shared", interaction_data_list: [turn("I am vegan")] });
    await publishInteractions(svc.deps, OTHER_PROJECT, request);
    expect((await finalize({ user_id: "fay", session_id: "shared" })).body).toMatchObject({ accepted: false, request_id: null });
    expect((await learning.pendingSummary(svc.db, OTHER_PROJECT, "fay", 0)).forced).toBe(false);
  });

  test("bad input is a 422 naming the field", async () => {
    for (const [body, field] of [
      [{ session_id: "s" }, "user_id"],
      [{ user_id: "", session_id: "s" }, "user_id"],
      [{ user_id: "ana" }, "session_id"],
      [{ user_id: "ana", session_id: "   " }, "session_id"],
      [{ user_id: "ana", session_id: "s".repeat(256) }, "session_id"],
      [{ user_id: "ana", session_id: "s", force: true }, "force"],
    ] as const) {
      const response = await finalize(body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });
});

describe("publish with session_finished", () => {
  test("is the same hint: the request's short window is learned at once, and no warning names the field", async () => {
    const published = await publish({ user_id: "gus", session_id: "s", session_finished: true, interaction_data_list: [turn("I have a golden retriever")] });
    expect(published.warnings).toEqual([]);
    await svc.learningIdle();
    expect(await statusOf(published.request_id)).toBe("done");
    expect(await profilesOf("gus")).toEqual(["Owns a golden retriever named Biscuit"]);
  });

  test("false, or null (omitted), leaves the window to the stride or the inactivity deadline", async () => {
    for (const session_finished of [false, null]) {
      const published = await publish({ user_id: `hal-${session_finished}`, session_id: "s", session_finished, interaction_data_list: [turn("I am vegan")] });
      await svc.learningIdle();
      expect(await statusOf(published.request_id)).toBe("pending");
    }
  });

  test("a request_id from the caller is discarded with a warning (the service mints ids); null is omitted", async () => {
    const sent = await publish({ user_id: "ida", session_id: "s", request_id: "mine", interaction_data_list: [turn("Hi")] });
    expect(sent.request_id).not.toBe("mine");
    expect(sent.warnings).toEqual([expect.stringContaining("request_id")]);
    expect((await publish({ user_id: "ida", session_id: "s", request_id: null, interaction_data_list: [turn("Hi")] })).warnings).toEqual([]);
  });

  test("session_finished that is not a boolean is a 422 naming it", async () => {
    const response = await svc.call("POST", "/api/publish_interaction", {
      user_id: "ida",
      session_id: "s",
      session_finished: "yes",
      interaction_data_list: [turn("Hi")],
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("session_finished");
  });
});
