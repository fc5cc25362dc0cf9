import { fileURLToPath } from "node:url";
import type { Tracing } from "@als/telemetry";
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from "@temporalio/interceptors-opentelemetry";
import type { ActivityInterceptorsFactory, WorkerOptions } from "@temporalio/worker";

/** The SDK's workflow interceptors, bundled into the workflow sandbox with our workflows. */
const WORKFLOW_INTERCEPTORS = fileURLToPath(import.meta.resolve("@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js"));

/**
 * What the worker adds when tracing is on, from Temporal's OpenTelemetry interceptors: a workflow
 * continues the trace of the request that started or signalled it (its spans leave the sandbox by
 * a sink into the process's span processor), each activity runs in a span of that trace (so its
 * database and LLM spans join it), and the worker's own client passes the trace on to what it
 * schedules. Off: nothing.
 */
export function workerTracing(tracing: Tracing | undefined): {
  activity: ActivityInterceptorsFactory[];
  workflowModules: string[];
  sinks: WorkerOptions["sinks"];
  client: { workflow: OpenTelemetryWorkflowClientInterceptor[] };
} {
  if (!tracing) return { activity: [], workflowModules: [], sinks: {}, client: { workflow: [] } };
  return {
    activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    workflowModules: [WORKFLOW_INTERCEPTORS],
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
    client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  };
}
