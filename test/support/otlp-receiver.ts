import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, string | number | boolean>;
}

/** An OTLP AnyValue as a plain value (the kinds our spans carry). */
function plainValue(value: any): string | number | boolean {
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("boolValue" in value) return value.boolValue;
  return JSON.stringify(value);
}

const attributesOf = (list: any[] | undefined) => Object.fromEntries((list ?? []).map((each: any) => [each.key, plainValue(each.value)]));

/** The spans of one ExportTraceServiceRequest in JSON encoding (ids as hex, as the OTLP/JSON mapping says). */
function spansOf(body: any): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans: any) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
    return (resourceSpans.scopeSpans ?? []).flatMap((scope: any) =>
      (scope.spans ?? []).map((span: any) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        service,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

/**
 * A collector on 127.0.0.1 speaking OTLP/HTTP with the JSON encoding (POST /v1/traces, answered as
 * the protocol says: 200 and an ExportTraceServiceResponse), keeping every span received and the
 * raw bodies (to search them for what must never be exported). node:http, so Bun tests and the Node
 * worker tests share it.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  let exports = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json")) {
      res.writeHead(415, { "content-type": "application/json" }).end(JSON.stringify({ message: "JSON-encoded OTLP traces only" }));
      return;
    }
    exports++;
    bodies.push(text);
    spans.push(...spansOf(JSON.parse(text)));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** OTEL_EXPORTER_OTLP_ENDPOINT for it. */
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    exports: () => exports,
    /** Waits (bounded) until `found` holds of the spans received, and returns them. */
    async waitFor(found: (spans: ReceivedSpan[]) => boolean, timeoutMs = 10_000): Promise<ReceivedSpan[]> {
      const deadline = Date.now() + timeoutMs;
      while (!found(spans)) {
        if (Date.now() > deadline) throw new Error(`spans not received within ${timeoutMs} ms; got: ${spans.map((span) => span.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
