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

test("one-text tasks that wait for a thread run together, each caller getting its own text's vector", async () => {
  const texts = ["refund a late order", "the user is vegan", "escalate a billing dispute", "book a window seat", "reset a password"];
  const alone = await Promise.all(texts.map((text) => pool.embedTexts(task(text))));
  const busy = pool.embedTexts({ modelDir, maxTokens: 128, texts: Array.from({ length: 32 }, (_, i) => `keeps the thread busy ${i}`) });
  const giveUp = new AbortController();
  const waiting = texts.map((text, i) => pool.embedTexts(task(text), i === 2 ? { signal: giveUp.signal } : {}));
  giveUp.abort(new Error("deadline"));
  await expect(waiting[2]!).rejects.toThrow("deadline");
  await busy;
  for (const [i, vector] of (await Promise.all(waiting.filter((_, i) => i !== 2))).entries()) {
    const own = alone[i < 2 ? i : i + 1]!;
    expect(vector.length).toBe(384);
    // The same text alone and in a batch: nearly the same vector (the int8 model quantizes its
    // activations per batch, so batch-mates move it slightly: cosine about 0.998).
    const cosine = vector.reduce((sum, value, d) => sum + value * own[d]!, 0);
    expect(cosine).toBeGreaterThan(0.99);
    // And not another text's: these texts are far apart.
    for (const other of alone) if (other !== own) expect(vector.reduce((sum, value, d) => sum + value * other[d]!, 0)).toBeLessThan(0.95);
  }
});

test("long one-text tasks are not coalesced: each runs alone, so the others can still be dropped while it runs", async () => {
  const busy = pool.embedTexts({ modelDir, maxTokens: 128, texts: Array.from({ length: 32 }, (_, i) => `keeps the thread busy ${i}`) });
  const long = (seed: number) => task(`${seed} ${"a long query about refunds and late orders ".repeat(35)}`);
  const giveUp = new AbortController();
  const first = pool.embedTexts(long(1), { signal: giveUp.signal });
  const behind = [pool.embedTexts(long(2), { signal: giveUp.signal }), pool.embedTexts(long(3), { signal: giveUp.signal })];
  let firstDone = false;
  first.then(() => {
    firstDone = true;
  });
  await busy;
  // The first has gone to the thread alone; the two behind it still wait, so giving up drops them.
  giveUp.abort(new Error("deadline"));
  for (const waiting of behind) await expect(waiting).rejects.toThrow("deadline");
  expect(firstDone).toBe(false);
  expect((await first).length).toBe(384);
});
