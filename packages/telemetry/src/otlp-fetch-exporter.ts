import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/**
 * Sends spans to an OTLP/HTTP collector, encoded by the OTel SDK's own JSON serializer, with fetch.
 * The SDK's OTLPTraceExporter sends through node:http and takes the request's `close` event for a
 * timeout; Bun emits it before the response has ended, so under Bun every export failed. fetch is
 * native to both Bun and Node. One export is bounded by `timeoutMs` and never retried: spans are
 * diagnostics, and a collector that is down must cost the process nothing but the dropped batch.
 */
export class OtlpFetchExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs: number,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (!body) {
      done({ code: ExportResultCode.FAILED, error: new Error("spans could not be encoded") });
      return;
    }
    const sending = fetch(this.url, {
      method: "POST",
      headers: { ...this.headers, "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    }).then(
      async (response) => {
        await response.arrayBuffer();
        done(response.ok ? { code: ExportResultCode.SUCCESS } : { code: ExportResultCode.FAILED, error: new Error(`collector answered ${response.status}`) });
      },
      (error: unknown) => done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
  }
}
