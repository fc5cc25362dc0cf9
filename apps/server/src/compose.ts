import {
  type CoreDeps,
  createCoreDeps,
  IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS,
  pruneExpiredIdempotencyKeys,
  type Reconciler,
  reconcile,
  type Settings,
  startBackgroundLoop,
  tracedLlm,
} from "@als/core";
import type { Logger } from "./logger.ts";
import { createApiMetrics } from "./metrics/api-metrics.ts";
import type { temporalOrchestrator } from "./temporal-orchestrator.ts";

/**
 * The composition root: the domain dependencies built from the settings (see createCoreDeps), and
 * the orchestrator of long-running work: the in-process reconciler in embedded mode, a Temporal
 * client in full mode (the worker runs the work).
 */
export async function composeService(settings: Settings, log: Logger) {
  const graph = await createCoreDeps(settings, log);
  // Before anything holds the LLM: every call of the process (the reconciler's, a search's reformulation) is counted.
  const metrics = createApiMetrics(graph.deps);
  if (graph.deps.llm) graph.deps.llm = tracedLlm(metrics.meterLlm(graph.deps.llm));
  const mode = settings.storage.kind === "postgres" ? ("full" as const) : ("embedded" as const);
  let deps: CoreDeps;
  let reconciler: Reconciler | undefined;
  let temporal: Awaited<ReturnType<typeof temporalOrchestrator>> | undefined;
  if (settings.temporal === undefined) {
    ({ deps, reconciler } = reconcile(graph.deps, (error: unknown) => log.error("reconciler pass failed", { error: String(error) })));
    reconciler.poke();
  } else {
    const { temporalOrchestrator } = await import("./temporal-orchestrator.ts");
    temporal = await temporalOrchestrator(settings.temporal, graph.deps, log);
    deps = temporal.deps;
  }
  // Every API process prunes: a DELETE of expired rows is safe to run twice, and it needs no orchestrator.
  const keyPruning = startBackgroundLoop(
    () => pruneExpiredIdempotencyKeys(deps),
    IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS,
    (error) => log.error("could not prune expired idempotency keys", { error: String(error) }),
  );
  return {
    deps,
    mode,
    reconciler,
    metrics,
    async close() {
      metrics.close();
      keyPruning.stop();
      await keyPruning.idle();
      reconciler?.stop();
      await reconciler?.idle();
      await temporal?.close();
      await graph.close();
    },
  };
}
