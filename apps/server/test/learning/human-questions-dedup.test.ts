import { afterAll, beforeAll, expect, test } from "bun:test";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// One question asked twice in a reply is asked once; a question of the same scope worded for
// another answer format (the playbook window's, after the profile window's) supersedes the pending
// one, and the runs of both wait on the newer; answering it resumes both. A run that asked two
// different questions waits until both are settled.
const QUESTION = "Does the user want invoices in euros?";
const ask = (answerFormat: string, times: number) =>
  Array.from({ length: times }, () => ({ question_text: QUESTION, answer_format: answerFormat, tags: ["billing"], context: null }));

function handler(request: FakeLlmRequest): FakeLlmReply {
  const offered = request.system.includes("You may ask a person instead of guessing");
  if (offered && request.schemaName === "profile_extraction" && request.user.includes("two things")) {
    const two = ["Is the user left-handed?", "Does the user work weekends?"].map((question_text) => ({
      question_text,
      answer_format: null,
      tags: [],
      context: null,
    }));
    return { json: { profiles: [], ask_human: two } };
  }
  const asking = request.user.includes("invoices in euros");
  if (!offered || !asking) return scriptedReply(request);
  if (request.schemaName === "profile_extraction") return { json: { profiles: [], ask_human: ask("yes/no", 2) } };
  if (request.schemaName === "playbook_extraction") return { json: { playbooks: [], ask_human: ask("one of: yes, no, sometimes", 1) } };
  return scriptedReply(request);
}

const { server, llm } = await startScriptedLlm(handler);
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ llm });
  expect((await svc.call("POST", "/api/update_config", { pending_tool_call_config: { enabled: true } })).status).toBe(200);
});
afterAll(async () => {
  await svc.close();
  await server.close();
});

test("duplicates are asked once, a rewording supersedes, and its answer resumes every run that waited", async () => {
  const published = await svc.call("POST", "/api/publish_interaction", {
    user_id: "fay",
    session_id: "fay-s",
    force_extraction: true,
    interaction_data_list: [{ role: "User", content: "Send me invoices in euros from now on." }],
  });
  expect(published.status).toBe(200);
  await svc.learningIdle();
  const calls = (await svc.call("GET", "/api/pending_tool_calls")).body.pending_tool_calls;
  // The profile window's two identical questions became one; the playbook window's rewording replaced it.
  expect(calls).toHaveLength(2);
  const [newer, older] = calls;
  expect(newer).toMatchObject({ status: "pending", answer_format: "one of: yes, no, sometimes" });
  expect(older).toMatchObject({ status: "superseded", answer_format: "yes/no", superseded_by: newer.id });
  expect(older.scope_hash).toBe(newer.scope_hash);
  expect(older.dedup_key).not.toBe(newer.dedup_key);

  expect((await svc.call("POST", `/api/pending_tool_calls/${older.id}/resolve`, { answer: "yes" })).status).toBe(409);
  expect((await svc.call("POST", `/api/pending_tool_calls/${newer.id}/resolve`, { answer: "yes" })).status).toBe(200);
  await svc.learningIdle();
  const status = (await svc.call("GET", `/api/learning_status?request_id=${published.body.request_id}`)).body;
  expect(status.status).toBe("done");
});

test("a run that asked two questions waits until both are settled", async () => {
  const published = await svc.call("POST", "/api/publish_interaction", {
    user_id: "gus",
    session_id: "gus-s",
    force_extraction: true,
    interaction_data_list: [{ role: "User", content: "I need two things sorted." }],
  });
  expect(published.status).toBe(200);
  await svc.learningIdle();
  const status = async () => (await svc.call("GET", `/api/learning_status?request_id=${published.body.request_id}`)).body.status;
  const asked = (await svc.call("GET", "/api/pending_tool_calls?status=pending")).body.pending_tool_calls.filter((call: any) => call.user_id === "gus");
  expect(asked.map((call: any) => call.question_text).sort()).toEqual(["Does the user work weekends?", "Is the user left-handed?"]);
  expect((await svc.call("POST", `/api/pending_tool_calls/${asked[0].id}/resolve`, { answer: "no" })).status).toBe(200);
  await svc.learningIdle();
  expect(await status()).toBe("pending");
  expect((await svc.call("POST", `/api/pending_tool_calls/${asked[1].id}/not_applicable`, {})).status).toBe(200);
  await svc.learningIdle();
  expect(await status()).toBe("done");
});
