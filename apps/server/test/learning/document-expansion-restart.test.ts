import { afterAll, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { holdCall, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";

// Every process is killed while the LLM holds an expansion call: the row stays pending (the rows
// are the cursor) and the restarted service expands it. Embedded, the new process frees the dead
// one's lease at start; in full mode the new worker waits until the lease runs out (a minute).
const hold = holdCall((request) => request.schemaName === "document_expansion");
const llm = await startFakeLlmServer(async (request) => {
  await hold.wait(request);
  return scriptedReply(request);
});
afterAll(() => llm.close());

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };

test(`an expansion cut off by a kill of every process is done after the restart (${testMode})`, async () => {
  const deployment = await startableDeployment("expansion-restart", LLM_ENV);
  const found = async (query: string) =>
    (await deployment.post("/api/search_agent_playbooks", { query, search_mode: "fts" })).body.agent_playbooks.map((p: any) => p.trigger);
  try {
    await deployment.start();
    expect((await deployment.post("/api/update_config", { enable_document_expansion: true })).status).toBe(200);
    const added = await deployment.post("/api/add_agent_playbook", { agent_playbooks: [{ trigger: "The parcel is late", content: "Offer a refund" }] });
    expect(added.status).toBe(200);
    await hold.reached;
    await deployment.kill();
    hold.release();
    await deployment.start();
    await until(async () => ((await found("reimbursement")).length === 1 ? true : undefined), 180_000);
    expect(await found("shipment")).toEqual(["The parcel is late"]);
  } finally {
    await deployment.close();
  }
}, 300_000);
