import { AppError, ProjectConfig } from "@als/contract";
import { projectConfig, type Scope, type Sql } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { parseStoredConfig } from "./project-config.ts";

export interface ConfigChange {
  previous: ProjectConfig;
  current: ProjectConfig;
}

/**
 * Changes the project's configuration while holding its row lock: `change` gets the stored whole and
 * returns the new one, which is validated as a whole before it is written (422 naming the field;
 * nothing is written). Concurrent changes therefore apply one after the other, each to the result
 * of the last. This process's cache forgets the project afterwards, even when the outcome is unknown.
 */
export async function changeProjectConfig(
  deps: CoreDeps,
  scope: Scope,
  change: (stored: ProjectConfig) => z.input<typeof ProjectConfig>,
  /** Writes what must change with the configuration, in its transaction (throwing undoes both). */
  alsoWrite?: (tx: Sql, change: ConfigChange) => Promise<void>,
): Promise<ConfigChange> {
  const now = deps.now();
  try {
    return await deps.db.transaction(async (tx) => {
      const previous = parseStoredConfig(await projectConfig.lockProjectConfig(tx, scope, now));
      const changed = ProjectConfig.safeParse(change(previous));
      if (!changed.success) throw invalidConfig(changed.error);
      await projectConfig.replaceProjectConfig(tx, scope, changed.data, now);
      await alsoWrite?.(tx, { previous, current: changed.data });
      return { previous, current: changed.data };
    });
  } finally {
    deps.services.configs.forget(scope);
  }
}

/**
 * Each field of the request was valid on its own; the merged whole broke a rule that spans fields.
 * The 422 names the field as a request body's would.
 */
function invalidConfig(error: z.ZodError): AppError {
  return AppError.validation(
    error.issues.map((issue) => ({
      loc: ["body", ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
      msg: issue.message,
      type: issue.code,
    })),
  );
}
