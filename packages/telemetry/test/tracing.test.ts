import { afterAll, describe, expect, test } from "bun:test";
import { loadSettings } from "@als/core";
import { activeTraceId, inSpan, tracingOn } from "@als/telemetry";
import { startTracing } from "@als/telemetry/start-tracing";
import { startOtlpReceiver } from "@als/test-support/otlp-receiver.ts";
import { createLogger } from "../../../apps/server/src/logger.ts";
import { withTraceIds } from "../../../apps/worker/src/trace-id-logger.ts";

const receiver = await startOtlpReceiver();
afterAll(() => receiver.close());

describe("tracing settings", () => {
  test("unset, no tracing is configured; the endpoint or the traces endpoint turns it on, OTEL_SDK_DISABLED off", () => {
    expect(loadSettings({}).tracing).toBeUndefined();
    expect(loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).tracing?.url).toBe("http://collector:4318/v1/traces");
    const both = loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:4318/traces" }).tracing;
    expect(both?.url).toBe("http://b:4318/traces");
    expect(loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "true" }).tracing).toBeUndefined();
    const full = loadSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t,x-team=ops",
      OTEL_SERVICE_NAME: "api-eu",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
    }).tracing;
    expect(full).toEqual({
      url: "http://a:4318/v1/traces",
      headers: { authorization: "Bearer t", "x-team": "ops" },
      serviceName: "api-eu",
      sampler: "parentbased_traceidratio",
      samplerRatio: 0.25,
    });
    expect(() => loadSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => loadSettings({ OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(/OTEL_TRACES_SAMPLER/);
  });
});

describe("the tracer", () => {
  test("off, a span helper only calls its function: no span, no trace id, nothing sent", async () => {
    expect(tracingOn()).toBe(false);
    expect(await inSpan("db SELECT", {}, async () => activeTraceId())).toBeUndefined();
    expect(receiver.exports()).toBe(0);
  });

  test("on, spans nest across awaits and reach the collector; a log line inside one carries its trace id (API and worker)", async () => {
    const tracing = startTracing({ url: `${receiver.endpoint}/v1/traces`, headers: {}, sampler: "always_on", samplerRatio: 1 }, "unit");
    const lines: string[] = [];
    // The worker's lines (Temporal's runtime logger, recorded here) carry it too.
    const workerLines: unknown[] = [];
    const record = (_message: string, meta?: unknown) => void workerLines.push(meta);
    const workerLog = withTraceIds({
      log: (_level, message, meta) => record(message, meta),
      trace: record,
      debug: record,
      info: record,
      warn: record,
      error: record,
    });
    const write = process.stderr.write;
    process.stderr.write = ((line: string) => lines.push(line) > 0) as typeof process.stderr.write;
    let traceId: string | undefined;
    try {
      traceId = await inSpan("outer", {}, async () => {
        await Bun.sleep(1);
        await inSpan("inner", {}, async () => {
          createLogger("info").info("inside");
          workerLog.info("inside", { step: 1 });
        });
        return activeTraceId();
      });
    } finally {
      process.stderr.write = write;
    }
    await tracing.shutdown();
    expect(JSON.parse(lines[0]!).traceId).toBe(traceId!);
    expect(workerLines).toEqual([{ traceId, step: 1 }]);
    workerLog.info("outside");
    expect(workerLines[1]).toBeUndefined();
    const spans = await receiver.waitFor((all) => all.length >= 2);
    const outer = spans.find((span) => span.name === "outer")!;
    expect(spans.find((span) => span.name === "inner")!.parentSpanId).toBe(outer.spanId);
    expect(outer.traceId).toBe(traceId!);
    expect(tracingOn()).toBe(false);
  });

  test("with the collector down, spans cost the caller nothing measurable and shutting down is bounded", async () => {
    const closed = await startOtlpReceiver();
    await closed.close();
    const tracing = startTracing({ url: `${closed.endpoint}/v1/traces`, headers: {}, sampler: "always_on", samplerRatio: 1 }, "unit");
    const startedAt = performance.now();
    for (let i = 0; i < 2_000; i++) await inSpan("db SELECT", {}, async () => i);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    const stopping = performance.now();
    await tracing.shutdown();
    expect(performance.now() - stopping).toBeLessThan(6_000);
  });
});
