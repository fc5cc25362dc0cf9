import { afterAll, expect, test } from "bun:test";
import { createComputePool } from "../src/index.ts";

const modelDir = new URL("../../../.cache/models/e5-small-v2-int8", import.meta.url).pathname;
const pool = createComputePool({ threads: 1 });
afterAll(() => pool.close());

const task = (text: string) => ({ modelDir, maxTokens: 128, texts: [text] });

test("an embedding task whose signal is aborted while it waits for a thread is dropped; the thread stays", async () => {
  await pool.embedTexts(task("warm-up"));
  const running = pool.embedTexts(task("the running one"));
  const giveUp = new AbortController();
  const queued = pool.embedTexts(task("the queued one"), { signal: giveUp.signal });
  let runningDone = false;
  running.then(() => {
    runningDone = true;
  });
  giveUp.abort(new Error("deadline"));
  await expect(queued).rejects.toThrow("deadline");
  // Dropped at once, not after the task ahead of it: it never reached the thread.
  expect(runningDone).toBe(false);
  expect((await running).length).toBe(384);
  // The thread (and its loaded model) was not terminated.
  expect((await pool.embedTexts(task("after"))).length).toBe(384);
  await expect(pool.embedTexts(task("too late"), { signal: giveUp.signal })).rejects.toThrow("deadline");
});
