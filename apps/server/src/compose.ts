import { createEmbedder } from "@als/ai";
import { Reconciler, systemClock, type CoreDeps, type Settings } from "@als/core";
import { openDatabase } from "@als/db";
import type { Logger } from "./logger.ts";

/**
 * The composition root: builds the process's dependencies from its settings. A model that cannot be
 * loaded throws EmbedderUnavailableError, whose message says what to install or configure.
 */
export async function composeService(settings: Settings, log: Logger) {
  const embedder = await createEmbedder(settings.embedding);
  const db = await openDatabase(settings.storage);
  const deps: CoreDeps = { db, embedder, now: systemClock, search: settings.search };
  const mode = settings.storage.kind === "postgres" ? ("full" as const) : ("embedded" as const);
  // Full mode leaves long-running work to the Temporal worker; embedded mode runs it in process.
  const reconciler =
    settings.temporal === undefined ? new Reconciler(deps, (error: unknown) => log.error("reconciler pass failed", { error: String(error) })) : undefined;
  reconciler?.poke();
  return {
    deps,
    mode,
    reconciler,
    async close() {
      await reconciler?.idle();
      await db.close();
      await embedder.close();
    },
  };
}
