import { expect, test } from "bun:test";
import { fileURLToPath } from "node:url";

test("the local embedder works under Node (node --import tsx), as in the Temporal worker", async () => {
  const script = fileURLToPath(new URL("./embed-under-node.ts", import.meta.url));
  const child = Bun.spawn(["node", "--import", "tsx", script], { stdout: "pipe", stderr: "pipe" });
  const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  expect(stderr).toBe("");
  expect(exitCode).toBe(0);
  const result = JSON.parse(stdout);
  expect(result.bun).toBe(false);
  expect(result).toMatchObject({ modelId: "e5-small-v2-int8", dimensions: 384 });
  expect(result.norm).toBeCloseTo(1, 5);
  expect(result.close).toBeGreaterThan(result.far + 0.1);
  expect(result.query).toBeGreaterThan(0.9);
});
