import { describe, expect, test } from "bun:test";
import { RankedTurns } from "../../src/concurrency/ranked-turns.ts";

const open = () => new AbortController().signal;

describe("RankedTurns", () => {
  test("one piece of work runs at a time", async () => {
    const turns = new RankedTurns();
    let running = 0;
    let most = 0;
    const work = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
    };
    await Promise.all([1, 2, 3, 4].map((rank) => turns.run(open(), rank, work)));
    expect(most).toBe(1);
  });

  test("the waiting work of the lowest rank goes first, equal ranks in the order they came", async () => {
    const turns = new RankedTurns();
    const order: string[] = [];
    const record = (name: string) => async () => {
      order.push(name);
    };
    await Promise.all([
      turns.run(open(), 5, record("first, running")),
      turns.run(open(), 9, record("rank 9")),
      turns.run(open(), 1, record("rank 1 a")),
      turns.run(open(), 1, record("rank 1 b")),
      turns.run(open(), 3, record("rank 3")),
    ]);
    expect(order).toEqual(["first, running", "rank 1 a", "rank 1 b", "rank 3", "rank 9"]);
  });

  test("work whose signal aborted while it waited is skipped with the signal's reason", async () => {
    const turns = new RankedTurns();
    const expiry = new AbortController();
    let ran = false;
    const first = turns.run(open(), 1, async () => {
      expiry.abort(new Error("deadline"));
    });
    const skipped = turns.run(expiry.signal, 2, async () => {
      ran = true;
    });
    await first;
    await expect(skipped).rejects.toThrow("deadline");
    expect(ran).toBe(false);
    // The turn passed on: later work still runs.
    expect(await turns.run(open(), 3, async () => "after")).toBe("after");
  });

  test("work that throws synchronously fails alone and the turn passes on", async () => {
    const turns = new RankedTurns();
    const failing = turns.run(open(), 1, () => {
      throw new Error("sync");
    });
    await expect(failing).rejects.toThrow("sync");
    expect(await turns.run(open(), 2, async () => 1)).toBe(1);
  });

  test("timers run between turns: queued work does not hold the event loop until it is all done", async () => {
    const turns = new RankedTurns();
    let done = 0;
    // Each piece blocks the thread for 2 ms, as a statement PGlite runs on this thread does.
    const block = async () => {
      const until = performance.now() + 2;
      while (performance.now() < until) {}
      done++;
    };
    let doneWhenTimerRan = -1;
    setTimeout(() => {
      doneWhenTimerRan = done;
    }, 0);
    await Promise.all(Array.from({ length: 20 }, (_, rank) => turns.run(open(), rank, block)));
    expect(doneWhenTimerRan).toBeGreaterThanOrEqual(0);
    expect(doneWhenTimerRan).toBeLessThan(20);
  });
});
