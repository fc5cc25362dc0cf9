import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CONSOLE_DIST } from "../../apps/server/src/http/console-files.ts";

/**
 * Builds the operator console unless a build is there: scripts/test builds it before the suites, a
 * single test file run on a fresh checkout has none yet.
 */
export function ensureConsoleBuilt(): void {
  if (existsSync(resolve(CONSOLE_DIST, "index.html"))) return;
  const build = Bun.spawnSync(["bash", resolve(import.meta.dir, "../../scripts/build-console")], { stderr: "inherit" });
  if (build.exitCode !== 0) throw new Error("scripts/build-console failed");
}
