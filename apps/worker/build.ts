/**
 * Builds the worker into one ES module, apps/worker/dist/worker.mjs, which Node runs without a
 * TypeScript loader: `bun apps/worker/build.ts && node --enable-source-maps apps/worker/dist/worker.mjs`.
 *
 * Under `node --import tsx` every module the worker loads, ours and the dependencies', passes through
 * loader hooks that Node 20 runs on a thread of their own: about 5 s of CPU at every start, half of
 * what a worker costs to start. The bundle holds our workspace packages only (`@als/*` and relative
 * imports); every other package stays an import of node_modules, as the SDK's native parts and the
 * files it loads by path require.
 *
 * Modules that find their files beside them (migrations, prompts, the compute pool's task files) do
 * so through `import.meta.url`, which in a bundle would be the bundle's: each module's own file URL
 * is written in its place. Written under a new name and renamed, so a worker starting meanwhile never
 * reads half a bundle.
 */
import { randomUUID } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

const ENTRY = fileURLToPath(new URL("./src/main.ts", import.meta.url));
const OUT_DIR = fileURLToPath(new URL("./dist/", import.meta.url));
const WORKER_BUNDLE = `${OUT_DIR}worker.mjs`;

const partial = `worker.${randomUUID()}.partial.mjs`;
const result = await Bun.build({
  entrypoints: [ENTRY],
  outdir: OUT_DIR,
  naming: partial,
  target: "node",
  format: "esm",
  // Inline, so the one rename below moves the bundle and its map together.
  sourcemap: "inline",
  plugins: [
    {
      name: "workspace-modules-only",
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@als/") ? undefined : { path: args.path, external: true }));
        build.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => ({
          contents: (await Bun.file(args.path).text()).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
          loader: args.path.endsWith(".ts") ? "ts" : "js",
        }));
      },
    },
  ],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  await rm(`${OUT_DIR}${partial}`, { force: true });
  process.exit(1);
}
await rename(`${OUT_DIR}${partial}`, WORKER_BUNDLE);
