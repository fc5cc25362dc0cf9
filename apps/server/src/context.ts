import type { CoreDeps } from "@als/core";
import type { Scope } from "@als/db";
import type { Logger } from "./logger.ts";

/** What a handler knows about the request it serves: who (organisation, project) and its correlation id. */
export interface RequestContext {
  deps: CoreDeps;
  scope: Scope;
  correlationId: string;
  /** For what a handler leaves running after it has answered. */
  log: Logger;
}
