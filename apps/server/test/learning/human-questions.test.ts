import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { STAGING_PROFILE, STAGING_QUESTION, scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// With pending_tool_call_config.enabled, a profile window that mentions "the staging account" makes
// the scripted model ask STAGING_QUESTION (ask_human) instead of deciding; the window waits, and
// once the question is settled it resumes and extracts STAGING_PROFILE if the answer was yes.
const calls: FakeLlmRequest[] = [];
const { server, llm } = await startScriptedLlm((request) => {
  calls.push(request);
  return scriptedReply(request);
});
let svc: TestService;
let other: Tenant;

beforeAll(async () => {
  svc = await startTestService({ llm });
  other = await createTenant(svc.deps, "bystander");
  expect((await svc.call("POST", "/api/update_config", { pending_tool_call_config: { enabled: true } })).status).toBe(200);
});
afterAll(async () => {
  await svc.close();
  await server.close();
});

const base = "/api/pending_tool_calls";

async function publish(userId: string, content: string): Promise<string> {
  const response = await svc.call("POST", "/api/publish_interaction", {
    user_id: userId,
    session_id: `${userId}-s`,
    force_extraction: true,
    interaction_data_list: [{ role: "User", content }],
  });
  expect(response.status).toBe(200);
  await svc.learningIdle();
  return response.body.request_id;
}

const statusOf = async (requestId: string) => (await svc.call("GET", `/api/learning_status?request_id=${requestId}`)).body;
const profilesOf = async (userId: string) =>
  (await svc.call("POST", "/api/get_profiles", { user_id: userId })).body.user_profiles.map((p: { content: string }) => p.content);

/** The user's one pending question, after a window of theirs asked it. */
async function askedBy(userId: string) {
  const list = await svc.call("GET", `${base}?status=pending`);
  expect(list.status).toBe(200);
  const mine = list.body.pending_tool_calls.filter((call: { user_id: string }) => call.user_id === userId);
  expect(mine).toHaveLength(1);
  return mine[0];
}

describe("a window that asks a person", () => {
  test("waits for the answer, then commits its learnings once, using it", async () => {
    const first = await publish("ana", "Please always use the staging account when you deploy for me.");
    const question = await askedBy("ana");
    expect(question).toMatchObject({
      tool_name: "ask_human",
      status: "pending",
      question_text: STAGING_QUESTION,
      answer_format: "yes/no",
      tags: ["preference"],
      args: { context: "the user said to use the staging account" },
      scope: { project_id: "default", user_id: "ana" },
      result: null,
      resolved_at: null,
      superseded_by: null,
    });
    expect(question.scope_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(question.expires_at) - Date.parse(question.created_at)).toBe(7 * 86_400_000);
    expect(await statusOf(first)).toMatchObject({ status: "pending" });
    expect((await statusOf(first)).reason).toContain("pending_tool_calls");
    // A later window of the same user waits behind the one that asked.
    const second = await publish("ana", "I am vegan.");
    expect((await statusOf(second)).status).toBe("pending");
    expect(await profilesOf("ana")).toEqual([]);

    const resolved = await svc.call("POST", `${base}/${question.id}/resolve`, { answer: "yes", valid_for_seconds: 3600 });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: question.id, status: "resolved", result: { answer: "yes" } });
    expect(Date.parse(resolved.body.valid_until) - Date.parse(resolved.body.resolved_at)).toBe(3_600_000);
    expect(resolved.body.cache_until).toBe(resolved.body.valid_until);
    await svc.learningIdle();
    expect((await statusOf(first)).status).toBe("done");
    expect((await statusOf(second)).status).toBe("done");
    expect((await profilesOf("ana")).sort()).toEqual([STAGING_PROFILE.content, "Is vegan"].sort());
    // The resumed call carried the answer.
    const resumed = calls.filter((call) => call.schemaName === "profile_extraction" && call.user.includes("The person's answers:"));
    expect(resumed.at(-1)!.user).toContain("Answer: yes");
  });

  test("the same question asked again while its answer is valid is not asked again", async () => {
    const before = (await svc.call("GET", base)).body.pending_tool_calls.length;
    const request = await publish("ana", "Deploy the fix with the staging account again.");
    expect((await statusOf(request)).status).toBe("done");
    expect((await svc.call("GET", base)).body.pending_tool_calls.length).toBe(before);
    expect(await profilesOf("ana")).toContain(STAGING_PROFILE.content);
  });

  test("a cancelled question lets its run go on without the answer", async () => {
    const request = await publish("bo", "Use the staging account for this one.");
    const question = await askedBy("bo");
    const cancelled = await svc.call("POST", `${base}/${question.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled", result: null });
    await svc.learningIdle();
    expect((await statusOf(request)).status).toBe("done");
    expect(await profilesOf("bo")).toEqual([]);
    const resumed = calls.filter((call) => call.user.includes("The person's answers:")).at(-1)!;
    expect(resumed.user).toContain("the question was cancelled");
    // Only a pending question can be cancelled, resolved or marked not applicable.
    for (const [method, action, body] of [
      ["POST", "cancel", undefined],
      ["POST", "resolve", { answer: "yes" }],
      ["POST", "not_applicable", {}],
      ["PATCH", "answer", { answer: "yes" }],
    ] as const) {
      const refused = await svc.call(method, `${base}/${question.id}/${action}`, body);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain("cancelled");
    }
  });

  test("not applicable, then a changed answer; each only from the state the contract allows", async () => {
    await publish("cy", "The staging account is what I want.");
    const question = await askedBy("cy");
    expect((await svc.call("PATCH", `${base}/${question.id}/answer`, { answer: "no" })).status).toBe(409);
    const marked = await svc.call("POST", `${base}/${question.id}/not_applicable`, {});
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ status: "resolved", result: { not_applicable: true } });
    const changed = await svc.call("PATCH", `${base}/${question.id}/answer`, { answer: "no", valid_for_seconds: 60 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ status: "resolved", result: { answer: "no" } });
    expect(Date.parse(changed.body.valid_until) - Date.parse(changed.body.resolved_at)).toBe(60_000);
    await svc.learningIdle();
    expect(await profilesOf("cy")).toEqual([]);
  });

  test("a question nobody answers expires and its run goes on", async () => {
    const request = await publish("di", "Only the staging account, please.");
    const question = await askedBy("di");
    svc.clock.now += 8 * 86_400;
    const read = await svc.call("GET", `${base}/${question.id}`);
    expect(read.body.status).toBe("expired");
    await svc.learningIdle();
    expect((await statusOf(request)).status).toBe("done");
    expect(await profilesOf("di")).toEqual([]);
  });
});

describe("the pending tool call endpoints", () => {
  test("list: newest first, filtered by status, limited", async () => {
    const all = (await svc.call("GET", base)).body.pending_tool_calls;
    expect(all.length).toBeGreaterThanOrEqual(4);
    const created = all.map((call: { created_at: string }) => Date.parse(call.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const cancelled = (await svc.call("GET", `${base}?status=cancelled`)).body.pending_tool_calls;
    expect(cancelled.map((call: { user_id: string }) => call.user_id)).toEqual(["bo"]);
    expect((await svc.call("GET", `${base}?limit=1`)).body.pending_tool_calls).toHaveLength(1);
  });

  test("bad input is refused naming the field, and changes nothing", async () => {
    await publish("ed", "Use the staging account.");
    const question = await askedBy("ed");
    const refusals: [string, string, string, unknown, string][] = [
      ["GET", `${base}?limit=0`, "", undefined, "limit"],
      ["GET", `${base}?limit=501`, "", undefined, "limit"],
      ["GET", `${base}?status=open`, "", undefined, "status"],
      ["POST", `${base}/${question.id}/resolve`, "both", { answer: "yes", result: { answer: "yes" } }, "answer"],
      ["POST", `${base}/${question.id}/resolve`, "neither", {}, "answer"],
      ["POST", `${base}/${question.id}/resolve`, "empty", { answer: "" }, "answer"],
      ["POST", `${base}/${question.id}/resolve`, "zero", { answer: "yes", valid_for_seconds: 0 }, "valid_for_seconds"],
      ["PATCH", `${base}/${question.id}/answer`, "blank", { answer: "  " }, "answer"],
      ["POST", `${base}/${question.id}/not_applicable`, "negative", { valid_for_seconds: -5 }, "valid_for_seconds"],
    ];
    for (const [method, path, , body, field] of refusals) {
      const response = await svc.call(method, path, body);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body.detail)).toContain(field);
    }
    expect((await svc.call("GET", `${base}/${question.id}`)).body.status).toBe("pending");
    expect((await svc.call("GET", `${base}/no-such-call`)).status).toBe(404);
    expect((await svc.call("POST", `${base}/no-such-call/resolve`, { answer: "yes" })).status).toBe(404);
  });

  test("another organisation's credentials see none of it", async () => {
    const question = await askedBy("ed");
    const theirs = bearer(other.fullKey);
    expect((await svc.call("GET", base, undefined, theirs)).body.pending_tool_calls).toEqual([]);
    expect((await svc.call("GET", `${base}/${question.id}`, undefined, theirs)).status).toBe(404);
    expect((await svc.call("POST", `${base}/${question.id}/resolve`, { answer: "yes" }, theirs)).status).toBe(404);
    expect((await svc.call("POST", `${base}/${question.id}/cancel`, undefined, theirs)).status).toBe(404);
    expect((await svc.call("GET", `${base}/${question.id}`)).body.status).toBe("pending");
  });
});

describe("erasure", () => {
  test("erasing a user deletes the questions their runs raised in every project, and finishes", async () => {
    // A tenant of its own: the sessions of the first ones lapsed when the clock moved past an expiry.
    const owner = await createTenant(svc.deps, "erasure");
    const created = await svc.call("POST", "/api/account/projects", { project_id: "second", name: "Second" }, bearer(owner.loginSession));
    expect(created.status).toBe(201);
    const inProject = (projectId: string) => ({ ...bearer(owner.loginSession), "x-service-project": projectId });
    for (const projectId of ["default", "second"]) {
      const as = inProject(projectId);
      expect((await svc.call("POST", "/api/update_config", { pending_tool_call_config: { enabled: true } }, as)).status).toBe(200);
      for (const userId of ["zed", "yan"]) {
        const published = await svc.call(
          "POST",
          "/api/publish_interaction",
          { user_id: userId, session_id: `${userId}-s`, force_extraction: true, interaction_data_list: [{ content: "Use the staging account." }] },
          as,
        );
        expect(published.status).toBe(200);
      }
    }
    await svc.learningIdle();
    const usersAsked = async (projectId: string) =>
      (await svc.call("GET", base, undefined, inProject(projectId))).body.pending_tool_calls.map((call: { user_id: string }) => call.user_id).sort();
    expect(await usersAsked("default")).toEqual(["yan", "zed"]);
    expect(await usersAsked("second")).toEqual(["yan", "zed"]);

    const governance = { ...bearer(owner.governanceSession), "x-service-project": "default" };
    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "zed", request_id: "erase-zed" }, governance);
    expect(erased.status).toBe(202);
    let status: { status: string } = { status: "" };
    for (let attempt = 0; attempt < 100 && status.status !== "complete" && status.status !== "failed"; attempt++) {
      await svc.learningIdle();
      status = (await svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, governance)).body;
      await Bun.sleep(20);
    }
    expect(status.status).toBe("complete");
    expect(await usersAsked("default")).toEqual(["yan"]);
    expect(await usersAsked("second")).toEqual(["yan"]);
  });
});
