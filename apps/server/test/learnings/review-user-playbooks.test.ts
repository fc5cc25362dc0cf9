import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { playbookReviews } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { scriptedReply, scriptedReview, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { statusName } from "@als/test-support/wire-status.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
/** Reviews fail for a playbook whose content mentions this (a later failure of an apply run). */
let failOn: string | undefined;

/** The scripted reviewer decides by a keyword in the playbook's content. */
function review(request: FakeLlmRequest): FakeLlmReply {
  if (request.schemaName !== "playbook_review") return scriptedReply(request);
  if (failOn && /^content: (.*)$/m.exec(request.user)?.[1]?.includes(failOn))
    return { status: 400, error: { type: "invalid_request_error", message: "refused" } };
  return scriptedReview(request);
}

let t0: number;
const ids: Record<string, number> = {};

beforeAll(async () => {
  llm = await startScriptedLlm(review);
  svc = await startTestService({ llm: llm.llm });
  t0 = svc.clock.now;
  const published = await svc.call("POST", "/api/publish_interaction", {
    user_id: "ana",
    session_id: "s",
    interaction_data_list: [
      { role: "User", content: "Where is my order?" },
      { role: "Agent", content: "It ships tomorrow." },
    ],
  });
  const other = await svc.call("POST", "/api/publish_interaction", { user_id: "ben", session_id: "s", interaction_data_list: [{ content: "hi" }] });
  const add = async (name: string, body: object) => {
    svc.clock.now += 10;
    ids[name] = (await addUserPlaybooks(svc, [{ user_id: "ana", trigger: "Order status", ...body }]))[0]!;
  };
  await add("keep", { content: "KEEP give the tracking link", request_id: published.body.request_id });
  await add("drop", { content: "DROP promise next-day delivery", request_id: published.body.request_id });
  await add("edit", { content: "Say when it ships", request_id: published.body.request_id });
  await add("handmade", { content: "KEEP added by hand" });
  await add("foreign", { content: "KEEP from another user's request", request_id: other.body.request_id });
  await svc.learningIdle();
});
afterAll(async () => {
  await svc.close();
  await llm.server.close();
});

const reviewCall = (body: object) => svc.call("POST", "/api/review_user_playbooks", body);
const statusOf = async (id: number) =>
  statusName(
    (await svc.call("POST", "/api/get_user_playbooks", { user_playbook_id: id, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).body.user_playbooks[0]
      ?.status,
  );

describe("review_user_playbooks", () => {
  test("report mode decides newest first, skips what lacks provenance, and writes nothing", async () => {
    const response = await reviewCall({ start_time: t0, end_time: svc.clock.now });
    expect(response.status).toBe(200);
    const decisions = response.body.results.map((r: any) => [r.user_playbook_id, r.decision]);
    expect(decisions).toEqual([
      [ids.foreign, "skip"],
      [ids.handmade, "skip"],
      [ids.edit, "edit"],
      [ids.drop, "reject"],
      [ids.keep, "accept"],
    ]);
    expect(response.body.results[0].reason).toContain("another user");
    expect(response.body.results[1].reason).toContain("provenance");
    expect(response.body.results[2].edited).toEqual({ trigger: "Any order question", content: "Say when it ships (broadened)", rationale: "generalised" });
    for (const id of Object.values(ids)) expect(await statusOf(id)).toBe("CURRENT");
  });

  test("top_k applies newest first; the range is inclusive", async () => {
    const response = await reviewCall({ start_time: t0 + 10, end_time: t0 + 30, top_k: 2 });
    expect(response.body.results.map((r: any) => r.user_playbook_id)).toEqual([ids.edit, ids.drop]);
  });

  test("refuses a missing or inverted range and a top_k outside 1..100, naming the field", async () => {
    for (const [body, field] of [
      [{ end_time: 10 }, "start_time"],
      [{ start_time: 10 }, "end_time"],
      [{ start_time: 10, end_time: 10 }, "end_time"],
      [{ start_time: 10, end_time: 20, top_k: 0 }, "top_k"],
      [{ start_time: 10, end_time: 20, top_k: 101 }, "top_k"],
      [{ start_time: 10, end_time: 20, report_only: "no" }, "report_only"],
    ] as const) {
      const response = await reviewCall(body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });

  test("apply mode answers at once, then commits each decision: reject archives, edit supersedes with lineage, accept keeps", async () => {
    const response = await reviewCall({ start_time: t0, end_time: svc.clock.now, report_only: false });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
    const runId = response.body.run_id;
    while ((await playbookReviews.reviewRunStatus(svc.db, runId))?.status === "running") await Bun.sleep(20);
    expect(await playbookReviews.reviewRunStatus(svc.db, runId)).toEqual({ status: "completed", error_code: null });
    expect(await statusOf(ids.keep!)).toBe("CURRENT");
    expect(await statusOf(ids.drop!)).toBe("ARCHIVED");
    expect(await statusOf(ids.edit!)).toBe("ARCHIVED");
    expect(await statusOf(ids.handmade!)).toBe("CURRENT");
    const decisions = await playbookReviews.decisionsOfRun(svc.db, runId);
    const edit = decisions.find((d) => d.user_playbook_id === ids.edit)!;
    expect(edit.decision).toBe("edit");
    const replacement = (await svc.call("POST", "/api/get_user_playbooks", { user_playbook_id: edit.replacement_id })).body.user_playbooks[0];
    expect(replacement).toMatchObject({ status: null, content: "Say when it ships (broadened)", trigger: "Any order question", user_id: "ana" });
  });

  test("a failure later in an apply run keeps the decisions committed before it", async () => {
    const published = await svc.call("POST", "/api/publish_interaction", { user_id: "ana", session_id: "s2", interaction_data_list: [{ content: "again" }] });
    const start = svc.clock.now + 1;
    svc.clock.now += 10;
    const [older] = await addUserPlaybooks(svc, [{ user_id: "ana", trigger: "t", content: "BOOM reviewed second", request_id: published.body.request_id }]);
    svc.clock.now += 10;
    const [newer] = await addUserPlaybooks(svc, [{ user_id: "ana", trigger: "t", content: "DROP reviewed first", request_id: published.body.request_id }]);
    failOn = "BOOM";
    try {
      const response = await reviewCall({ start_time: start, end_time: svc.clock.now, report_only: false });
      const runId = response.body.run_id;
      while ((await playbookReviews.reviewRunStatus(svc.db, runId))?.status === "running") await Bun.sleep(20);
      expect((await playbookReviews.reviewRunStatus(svc.db, runId))!.status).toBe("failed");
      expect(await statusOf(newer!)).toBe("ARCHIVED");
      expect(await statusOf(older!)).toBe("CURRENT");
      expect((await playbookReviews.decisionsOfRun(svc.db, runId)).map((d) => d.user_playbook_id)).toEqual([newer!]);
    } finally {
      failOn = undefined;
    }
  });
});
