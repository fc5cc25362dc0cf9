import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWorkflowCode, type Logger } from "@temporalio/worker";

/** The workflows' bundle entry; the rest of their sources are beside it. */
const WORKFLOWS_PATH = fileURLToPath(import.meta.resolve("@als/workflows"));
const WORKFLOWS_DIR = dirname(WORKFLOWS_PATH);
/** The lockfile pins the SDK and webpack, whose versions shape the bundle. */
const LOCKFILE = resolve(WORKFLOWS_DIR, "../../bun.lock");
/** Kept relative to the working directory, beside the models and the embedded database's template. */
const BUNDLE_DIR = resolve(".cache/workflow-bundle");

/**
 * The workflow code the worker runs. The SDK bundles the workflow sources with webpack,
 * about 2.5 s and 3 s of CPU at every start; a bundle is made once per set of inputs and kept
 * under .cache/workflow-bundle, so a worker that starts again (a deploy, a crash, a scale-out) loads
 * it at once. Its name is a digest of everything the bundle holds: the workflow sources (which
 * import only @temporalio/workflow and each other; their imports of our packages are types), the
 * lockfile, and the interceptor modules bundled with them.
 */
export async function workflowBundle(
  interceptorModules: readonly string[],
  logger: Logger,
  dir = BUNDLE_DIR,
): Promise<{ codePath: string } | { code: string }> {
  const file = join(dir, `${await bundleKey(interceptorModules)}.js`);
  if (
    await stat(file).then(
      (found) => found.isFile(),
      () => false,
    )
  )
    return { codePath: file };
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [...interceptorModules], logger });
  // Written under a new name and renamed: a worker never reads another's half-written bundle.
  const partial = `${file}.${randomUUID()}.partial`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(partial, code);
    await rename(partial, file);
    return { codePath: file };
  } catch {
    // A read-only working directory: this worker runs the bundle it made, and the next makes its own.
    await rm(partial, { force: true }).catch(() => {});
    return { code };
  }
}

async function bundleKey(interceptorModules: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const name of (await readdir(WORKFLOWS_DIR, { recursive: true })).filter((name) => name.endsWith(".ts")).sort()) {
    hash.update(name).update(await readFile(join(WORKFLOWS_DIR, name)));
  }
  hash.update(await readFile(LOCKFILE).catch(() => "no lockfile"));
  for (const module of interceptorModules) hash.update(module);
  return hash.digest("hex").slice(0, 16);
}
