import { expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { until } from "@als/test-support/server-process.ts";

// The in-process vector index across restarts of real processes: stopped gracefully it saves
// itself (embedded), killed it loses what it took in since its last save; either way the next
// process answers project-wide searches from its graph again, with every write made before the kill.

const ENV = { VECTOR_INDEX: "in-process", SERVICE_SERVER_TIMING: "true" };

test(`the in-process vector index answers alike after a graceful stop and after a kill (${testMode})`, async () => {
  const deployment = await startableDeployment("vector-index-restart", ENV);
  /** The agent playbooks found for `query`, and whether the in-process graph (not pgvector) answered. */
  const search = async (query: string) => {
    const response = await fetch(`${deployment.url}/api/search_agent_playbooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, threshold: 0, top_k: 3, search_mode: "vector" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { agent_playbooks: { trigger: string }[] };
    return {
      triggers: body.agent_playbooks.map((p) => p.trigger),
      viaGraph: /agent_playbooks;dur=[0-9.]+;desc="index"/.test(response.headers.get("server-timing") ?? ""),
    };
  };
  const fromGraph = (query: string) => until(async () => ((await search(query)).viaGraph ? search(query) : undefined), 60_000);
  const add = async (trigger: string, content: string) => {
    const added = await deployment.post("/api/add_agent_playbook", { agent_playbooks: [{ trigger, content, playbook_status: "APPROVED" }] });
    expect(added.status).toBe(200);
  };
  try {
    await deployment.start();
    await add("a customer asks to get their money back", "Check the purchase date, then issue a refund");
    await add("the user writes in Spanish", "Reply in Spanish");
    const refund = await fromGraph("reimbursement");
    expect(refund.triggers[0]).toBe("a customer asks to get their money back");

    await deployment.stop();
    await deployment.start();
    expect(await fromGraph("reimbursement")).toEqual(refund);

    await add("a parcel is lost in transit", "Open a carrier claim");
    expect((await search("my package never arrived")).triggers[0]).toBe("a parcel is lost in transit");
    await deployment.kill();
    await deployment.start();
    expect((await fromGraph("my package never arrived")).triggers[0]).toBe("a parcel is lost in transit");
    expect((await fromGraph("reimbursement")).triggers[0]).toBe("a customer asks to get their money back");
  } finally {
    await deployment.close();
  }
}, 300_000);
