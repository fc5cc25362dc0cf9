// Runs under Node, as the worker does in production (see reembed-profiles.node-test.ts).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { DefaultLogger } from "@temporalio/worker";
import { workflowBundle } from "../src/workflow-bundle.ts";

const dir = mkdtempSync(join(tmpdir(), "als-workflow-bundle-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = new DefaultLogger("ERROR");

test("the workflow bundle is made once, kept as a file named for its inputs, and read from it by the next worker", async () => {
  const made = await workflowBundle([], log, dir);
  assert.ok("codePath" in made, "a writable directory keeps the bundle");
  assert.match(made.codePath, /[0-9a-f]{16}\.js$/);
  const madeAt = statSync(made.codePath).mtimeMs;
  // The bundle holds our workflows (the SDK finds them by these names).
  assert.match(readFileSync(made.codePath, "utf8"), /learnUserWorkflow/);

  const again = await workflowBundle([], log, dir);
  assert.deepEqual(again, made);
  assert.equal(statSync(made.codePath).mtimeMs, madeAt);
  assert.deepEqual(readdirSync(dir), [made.codePath.split("/").at(-1)]);
});
