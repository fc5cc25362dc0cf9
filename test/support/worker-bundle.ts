import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let built = false;

/**
 * The command that starts a worker as production runs it: the bundle apps/worker/build.ts makes,
 * under plain Node. The bundle is made again once per test process, so a test never starts a worker
 * older than the sources; concurrent builds each rename a whole file into place.
 */
export function workerCommand(): string[] {
  if (!built) {
    execFileSync("bun", ["apps/worker/build.ts"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    built = true;
  }
  return ["node", "--enable-source-maps", "apps/worker/dist/worker.mjs"];
}
