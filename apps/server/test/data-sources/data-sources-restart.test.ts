import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";

// Real processes killed with SIGKILL: a connection the service accepted survives with a credential
// it can still open (the sealing key is the deployment's, not the process's), a connection whose
// provider check was cut off by the kill was never stored and holds no slot, and a sample whose
// provider read was cut off completes after the restart (embedded: the reconciler takes it up again;
// full: the Temporal workflow's step is retried on the restarted worker).

let braintrust: ProviderServer;
let deployment: Deployment;

beforeAll(async () => {
  braintrust = await startBraintrustServer();
  deployment = await startableDeployment("data-sources", { TRACE_PROVIDER_BASE_URLS: JSON.stringify({ "trace_provider_a:us": braintrust.url }) });
  await deployment.start();
}, 120_000);
afterAll(async () => {
  await deployment.close();
  await braintrust.close();
});

const request = async (method: string, path: string, body?: object) => {
  const response = await fetch(`${deployment.url}${path}`, {
    method,
    ...(body && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

test("a connection survives a kill with a credential the restarted service can open; one killed mid-check is not stored", async () => {
  const kept = await deployment.post("/api/data-sources/connections", { name: "kept", api_key: BRAINTRUST_KEY });
  expect(kept.status).toBe(201);
  const id = kept.body.connection_id;
  expect(
    (await request("PUT", `/api/data-sources/connections/${id}/stream`, { revision: 1, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01" })).status,
  ).toBe(200);

  // The next create is killed while the provider still checks its credential.
  braintrust.delayNext(10_000);
  const received = braintrust.received.length;
  const cut = deployment.post("/api/data-sources/connections", { name: "cut off", api_key: BRAINTRUST_KEY }).catch(() => "killed");
  while (braintrust.received.length === received) await new Promise((resolve) => setTimeout(resolve, 20));
  await deployment.kill();
  expect(await cut).toBe("killed");
  await deployment.start();

  const listed = await request("GET", "/api/data-sources");
  expect(listed.body.connections.map((connection: { name: string }) => connection.name)).toEqual(["kept"]);
  expect(listed.body.capabilities.connections_in_use).toBe(1);
  const read = await request("GET", `/api/data-sources/connections/${id}`);
  expect(read.body).toMatchObject({
    revision: 2,
    external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    workspace_id: "e2a9c7f0-3b1d-4c5e-8f6a-7b8c9d0e1f07",
  });
  const discovered = await request("GET", `/api/data-sources/connections/${id}/projects`);
  expect(discovered.status).toBe(200);
  expect(discovered.body.projects.map((project: { id: string }) => project.id)).toEqual([
    "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02",
  ]);
  expect((await request("PUT", `/api/data-sources/connections/${id}/credential`, { revision: 2, api_key: BRAINTRUST_KEY })).body.revision).toBe(3);
}, 180_000);

test("a sample killed in the middle of its provider reads completes after the restart", async () => {
  const connection = await deployment.post("/api/data-sources/connections", { name: "sampled", api_key: BRAINTRUST_KEY });
  expect(connection.status).toBe(201);
  const stream = await request("PUT", `/api/data-sources/connections/${connection.body.connection_id}/stream`, {
    revision: 1,
    external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
  });
  braintrust.delayNext(30_000);
  const received = braintrust.received.length;
  const accepted = await deployment.post(`/api/data-sources/streams/${stream.body.stream_id}/samples`, {
    revision: stream.body.revision,
    sample_window: { start: "2026-11-01T00:00:00Z", end: "2026-11-06T00:00:00Z" },
  });
  expect(accepted.status).toBe(202);
  // The step is reading from the provider (its answer held back) when every process dies.
  while (braintrust.received.length === received) await new Promise((resolve) => setTimeout(resolve, 20));
  await deployment.kill();
  await deployment.start();
  let sample: any;
  for (let waited = 0; waited < 90_000; waited += 250) {
    sample = (await request("GET", `/api/data-sources/samples/${accepted.body.sample_id}`)).body;
    if (sample.status !== "in_progress") break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(sample).toMatchObject({ status: "complete", record_count: 5, truncated: false });
  expect(sample.buckets).toHaveLength(7);
}, 180_000);
