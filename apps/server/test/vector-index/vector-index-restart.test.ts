import { expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { qdrantSkipReason, testQdrant } from "@als/test-support/qdrant.ts";
import { randomPort, until } from "@als/test-support/server-process.ts";
import { startTcpProxy, type TcpProxy } from "@als/test-support/tcp-proxy.ts";
import type { QdrantSettings } from "@als/vector";

// A vector index across restarts of real processes. The in-process one: stopped gracefully it
// saves itself (embedded), killed it loses what it took in since its last save. Qdrant (where
// QDRANT_URL is set): it keeps its collections, and a write not yet pushed when the processes were
// killed waits in the outbox for the next process's sync. Either way the next process answers
// project-wide searches from the index again, with every write made before the kill. Processes
// started while Qdrant is out of reach start all the same: searches answer 503, writes are taken,
// and once Qdrant answers (a proxy to QDRANT_URL's server opening on the port they were given) the
// sync makes its collections and fills them.

const qdrant = qdrantSkipReason === undefined ? testQdrant() : undefined;
const qdrantEnv = (settings: QdrantSettings): Record<string, string> => ({
  QDRANT_URL: settings.url,
  QDRANT_COLLECTION_PREFIX: settings.collectionPrefix!,
  ...(settings.apiKey && { QDRANT_API_KEY: settings.apiKey }),
});
const INDEXES: { name: string; env: Record<string, string>; pushed: boolean; skipReason: string | undefined }[] = [
  { name: "the in-process vector index", env: { VECTOR_INDEX: "in-process" }, pushed: false, skipReason: undefined },
  { name: "Qdrant", env: qdrant ? qdrantEnv(qdrant.settings) : {}, pushed: true, skipReason: qdrantSkipReason },
];

for (const { name, env, pushed, skipReason } of INDEXES) {
  const title = `${name} answers alike after a graceful stop and after a kill (${testMode})`;
  test.skipIf(skipReason !== undefined)(skipReason === undefined ? title : `${title} (skipped: ${skipReason})`, () => restarts(env, pushed), 300_000);
}

async function restarts(env: Record<string, string>, pushed: boolean) {
  const deployment = await startableDeployment("vector-index-restart", { ...env, SERVICE_SERVER_TIMING: "true" });
  /** The agent playbooks found for `query`, and whether the vector index (not pgvector) answered. */
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
  /** The index's answer once it ranks `trigger` first: at once in-process, after the next push (about a second) with Qdrant. */
  const foundFirst = (query: string, trigger: string) =>
    pushed ? until(async () => ((await fromGraph(query)).triggers[0] === trigger ? search(query) : undefined), 30_000) : fromGraph(query);
  const add = async (trigger: string, content: string) => {
    const added = await deployment.post("/api/add_agent_playbook", { agent_playbooks: [{ trigger, content, playbook_status: "APPROVED" }] });
    expect(added.status).toBe(200);
  };
  try {
    await deployment.start();
    await add("a customer asks to get their money back", "Check the purchase date, then issue a refund");
    await add("the user writes in Spanish", "Reply in Spanish");
    const refund = await foundFirst("reimbursement", "a customer asks to get their money back");
    expect(refund.triggers[0]).toBe("a customer asks to get their money back");

    await deployment.stop();
    await deployment.start();
    expect(await fromGraph("reimbursement")).toEqual(refund);

    await add("a parcel is lost in transit", "Open a carrier claim");
    // In-process, the graph took it in and the kill loses it; with Qdrant, killed before its push, it waits in the outbox.
    if (!pushed) expect((await search("my package never arrived")).triggers[0]).toBe("a parcel is lost in transit");
    await deployment.kill();
    await deployment.start();
    expect((await foundFirst("my package never arrived", "a parcel is lost in transit")).triggers[0]).toBe("a parcel is lost in transit");
    expect((await fromGraph("reimbursement")).triggers[0]).toBe("a customer asks to get their money back");
  } finally {
    await deployment.close();
    if (pushed) await qdrant?.drop();
  }
}

const lateTitle = "processes started while Qdrant is out of reach start, answer searches 503 and take writes";
test(`${lateTitle} (${testMode})`, () => startsBeforeQdrant(undefined), 300_000);
const filledTitle = `${lateTitle}; once it answers, the sync fills it (${testMode})`;
test.skipIf(qdrant === undefined)(qdrant ? filledTitle : `${filledTitle} (skipped: ${qdrantSkipReason})`, () => startsBeforeQdrant(testQdrant()), 300_000);

async function startsBeforeQdrant(late: ReturnType<typeof testQdrant> | undefined) {
  // Nothing listens on this port until the proxy to the real server opens on it.
  const port = randomPort();
  const deployment = await startableDeployment("qdrant-late", {
    ...qdrantEnv({ ...(late?.settings ?? { collectionPrefix: "als_unreachable_" }), url: `http://127.0.0.1:${port}` }),
    SERVICE_SERVER_TIMING: "true",
  });
  const search = () =>
    fetch(`${deployment.url}/api/search_agent_playbooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "reimbursement", threshold: 0, top_k: 3, search_mode: "vector" }),
    });
  let proxy: TcpProxy | undefined;
  try {
    const started = deployment.start();
    await Promise.race([started, deployment.serverExited().then(() => Promise.reject(new Error("the server exited at start")))]);
    const added = await deployment.post("/api/add_agent_playbook", {
      agent_playbooks: [
        { trigger: "a customer asks to get their money back", content: "Check the purchase date, then issue a refund", playbook_status: "APPROVED" },
      ],
    });
    expect(added.status).toBe(200);
    const refused = await search();
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([503, "storage_unavailable"]);
    if (!late) return;

    const upstream = new URL(late.settings.url);
    proxy = startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 80) }, port);
    const served = await until(async () => {
      const response = await search();
      if (response.status !== 200 || !/agent_playbooks;dur=[0-9.]+;desc="index"/.test(response.headers.get("server-timing") ?? "")) return undefined;
      // The collections are made before the drain that fills them: empty answers until then.
      const triggers = ((await response.json()) as { agent_playbooks: { trigger: string }[] }).agent_playbooks.map((p) => p.trigger);
      return triggers.length > 0 ? triggers : undefined;
    }, 60_000);
    expect(served).toEqual(["a customer asks to get their money back"]);
    expect(await late.count("agent_playbooks")).toBe(1);
  } finally {
    proxy?.stop();
    await deployment.close();
    if (proxy) await late?.drop();
  }
}
