import type { Endpoint, Endpoints } from "@als/contract";
import { endpoints } from "@als/contract";
import type { z } from "zod";
import { type CallOptions, requestOf } from "./call-endpoint.ts";
import { ClientError, decodeErrorResponse } from "./client-error.ts";
import { type ClientOptions, clientSettings } from "./create-client.ts";

/**
 * A call whose answer is read as it arrives (the governance export streams a bundle larger than a
 * client wants to hold): one attempt, a non-2xx answer thrown as a ClientError, a 2xx answer's body
 * handed over as a byte stream. The endpoint's timeout bounds the whole read, body included.
 */
export async function openEndpointStream<R extends keyof Endpoints, A extends keyof Endpoints[R]>(
  options: ClientOptions,
  resource: R,
  action: A,
  input: Endpoints[R][A] extends Endpoint ? z.input<Endpoints[R][A]["input"]> : never,
  call: CallOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const settings = clientSettings(options);
  const endpoint = endpoints[resource][action] as Endpoint;
  const { url, init, correlationId } = requestOf(settings, endpoint, input, call);
  const timeoutMs = call.timeoutMs ?? endpoint.timeoutMs ?? settings.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  // A body that fails midway never reaches flush: its timer must not keep a process alive (Node, Bun).
  (timer as { unref?: () => void }).unref?.();
  const abort = () => controller.abort();
  call.signal?.addEventListener("abort", abort, { once: true });
  const release = () => {
    clearTimeout(timer);
    call.signal?.removeEventListener("abort", abort);
  };
  let response: Response;
  try {
    response = await settings.fetch(url, { ...init, signal: controller.signal });
  } catch (error) {
    release();
    if (call.signal?.aborted) throw call.signal.reason;
    const reason = controller.signal.aborted ? `did not answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    throw new ClientError(0, controller.signal.aborted ? "timeout" : "network_error", `${endpoint.procedure}: ${reason}`, [], {
      correlation_id: correlationId,
    });
  }
  if (!response.ok || response.body === null) {
    const text = await response.text().finally(release);
    throw decodeErrorResponse(response.status, text);
  }
  // The timer stays armed while the body is read; it is released when the body ends or fails.
  return response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, stream) => stream.enqueue(chunk),
      flush: release,
    }),
  );
}
