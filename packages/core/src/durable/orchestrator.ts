import type { Scope } from "@als/db";
import type { DurableKind } from "./catalogue.ts";

/**
 * The port through which domain code tells the process's orchestrator (the embedded reconciler, or
 * Temporal) that committed work of a kind (catalogue.ts) waits to run, or moved: a user's
 * interaction stream, an operation, a session, a stream (`id` is the entry's id). The work is
 * committed before the call, so an orchestrator that cannot be reached only delays it: the next
 * start's recovery finds it.
 */
export interface Orchestrator {
  schedule(kind: DurableKind, scope: Scope, id: string): Promise<void> | void;
}
