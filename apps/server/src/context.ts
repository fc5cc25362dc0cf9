import type { CoreDeps } from "@als/core";
import type { Scope } from "@als/db";

/** What a handler knows about the request it serves: who (organisation, project) and its correlation id. */
export interface RequestContext {
  deps: CoreDeps;
  scope: Scope;
  correlationId: string;
}
