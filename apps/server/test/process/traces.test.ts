import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { type ReceivedSpan, startOtlpReceiver } from "@als/test-support/otlp-receiver.ts";

// The service as operators run it, exporting its spans over OTLP/HTTP to a collector (a
// deterministic one speaking the real protocol): one trace per request, continued from the
// caller's traceparent, with the database, embedding and vector index under it; in full mode
// through Temporal into the worker's activity and its database statements.

const receiver = await startOtlpReceiver();
let deployment: Deployment;

beforeAll(async () => {
  deployment = await startableDeployment("traces", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
  await deployment.start();
}, 60_000);
afterAll(async () => {
  await deployment?.close();
  await receiver.close();
});

const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("");
const inTrace = (traceId: string) => (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);

describe("traces", () => {
  test("a search is one trace continuing the caller's traceparent: its server span by procedure, with database, embedding and vector spans, and no user id or query text", async () => {
    const user = `user-${hex(6)}`;
    const query = `lantern ${hex(6)} repairs`;
    await deployment.post("/api/publish_interaction", {
      user_id: user,
      session_id: "s1",
      interaction_data_list: [{ role: "User", content: "I fix lanterns." }],
    });
    const traceId = hex(16);
    const callerSpan = hex(8);
    const response = await fetch(`${deployment.url}/api/search`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ query, user_id: user }),
    });
    expect(response.status).toBe(200);
    const spans = inTrace(traceId)(
      await receiver.waitFor((all) => {
        const server = all.find((span) => span.traceId === traceId && span.name === "search.unified");
        return server !== undefined && all.some((span) => span.traceId === traceId && span.name === "vector search");
      }),
    );
    const server = spans.find((span) => span.name === "search.unified")!;
    expect(server.parentSpanId).toBe(callerSpan);
    expect(server.kind).toBe(2); // SPAN_KIND_SERVER
    expect(server.service).toBe("agent-learning-api");
    expect(server.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/api/search", "http.response.status_code": 200 });
    const names = new Set(spans.map((span) => span.name));
    expect(names.has("db SELECT")).toBe(true);
    expect(names.has("embedding")).toBe(true);
    const vector = spans.find((span) => span.name === "vector search")!;
    expect(vector.attributes["als.vector.index"]).toBe(testMode === "embedded" ? "in-process" : "pgvector");
    // Every span of the request descends from the server span.
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans) if (span !== server) expect(ids.has(span.parentSpanId!)).toBe(true);
    const exported = receiver.bodies.join("\n");
    expect(exported).not.toContain(user);
    expect(exported).not.toContain(query);
    expect(exported).not.toContain("lanterns");
  });

  test("a request without a traceparent starts a trace of its own; a refused one is traced with its status, never its credential", async () => {
    const response = await fetch(`${deployment.url}/api/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: 42 }),
    });
    expect(response.status).toBe(422);
    const spans = await receiver.waitFor((all) => all.some((span) => span.name === "search.unified" && span.attributes["http.response.status_code"] === 422));
    const server = spans.find((span) => span.name === "search.unified" && span.attributes["http.response.status_code"] === 422)!;
    expect(server.parentSpanId).toBeUndefined();
    expect(server.attributes["error.type"]).toBe("validation_error");
    const key = `als_${hex(16)}`;
    const refused = await fetch(`${deployment.url}/api/search`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: "anything" }),
    });
    expect(refused.status).toBe(401);
    await receiver.waitFor((all) => all.some((span) => span.name === "search.unified" && span.attributes["http.response.status_code"] === 401));
    expect(receiver.bodies.join("\n")).not.toContain(key);
  });

  test.skipIf(testMode !== "full")(
    "a publish that schedules learning shares its trace with the worker's workflow, its activity and the activity's database statements",
    async () => {
      const traceId = hex(16);
      const response = await fetch(`${deployment.url}/api/publish_interaction`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: `00-${traceId}-${hex(8)}-01` },
        body: JSON.stringify({ user_id: `user-${hex(6)}`, session_id: "s1", interaction_data_list: [{ role: "User", content: "I keep bees." }] }),
      });
      expect(response.status).toBe(200);
      const spans = inTrace(traceId)(
        await receiver.waitFor((all) => {
          const activity = all.find((span) => span.traceId === traceId && span.name === "RunActivity:learningStep");
          // The workflow's StartActivity span leaves the sandbox after its activation, maybe after the activity's spans;
          // each process exports in batches of its own, so the API's spans may arrive after the worker's.
          return (
            activity !== undefined &&
            all.some((span) => span.traceId === traceId && span.name === "interactions.publish") &&
            all.some((span) => span.traceId === traceId && span.name === "SignalWithStartWorkflow:learnUserWorkflow") &&
            all.some((span) => span.spanId === activity.parentSpanId) &&
            all.some((span) => span.parentSpanId === activity.spanId && span.name.startsWith("db "))
          );
        }, 45_000),
      );
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const activity = spans.find((span) => span.name === "RunActivity:learningStep")!;
      expect(activity.service).toBe("agent-learning-worker");
      // The workflow's own span (RunWorkflow) is exported when the workflow ends, long after; its
      // steps are in the publish's trace: the API's server span and signal, the worker's activity.
      const publish = spans.find((span) => span.name === "interactions.publish")!;
      expect(publish.service).toBe("agent-learning-api");
      expect(spans.find((span) => span.name === "SignalWithStartWorkflow:learnUserWorkflow")!.parentSpanId).toBe(publish.spanId);
      expect(byId.get(activity.parentSpanId!)?.name).toBe("StartActivity:learningStep");
      expect(spans.some((span) => span.service === "agent-learning-worker" && span.name.startsWith("db ") && span.parentSpanId === activity.spanId)).toBe(true);
      // Temporal's workflow ids hold the user id: never exported.
      expect(spans.some((span) => "temporalWorkflowId" in span.attributes)).toBe(false);
    },
    60_000,
  );
});
