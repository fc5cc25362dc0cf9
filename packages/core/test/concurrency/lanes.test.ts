import { describe, expect, test } from "bun:test";
import { Lanes } from "../../src/concurrency/lanes.ts";

/** A run that ends when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("Lanes", () => {
  test("keys run first queued, first run, one lane taking them in turn", async () => {
    const order: string[] = [];
    const lanes = new Lanes<string>({ concurrency: () => 1, run: async (key) => void order.push(key), onError: () => {} });
    for (const key of ["c", "a", "b"]) lanes.queue(key);
    expect(order).toEqual([]);
    lanes.start();
    await lanes.drained();
    expect(order).toEqual(["c", "a", "b"]);
  });

  test("at most `concurrency` lanes run at once, read when lanes start", async () => {
    let running = 0;
    let most = 0;
    let limit = 2;
    const lanes = new Lanes<number>({
      concurrency: () => limit,
      run: async () => {
        running++;
        most = Math.max(most, running);
        await tick();
        running--;
      },
      onError: () => {},
    });
    for (let key = 0; key < 6; key++) lanes.request(key);
    expect(lanes.running).toBe(2);
    await lanes.drained();
    expect(most).toBe(2);
    limit = 3;
    for (let key = 0; key < 6; key++) lanes.request(key);
    expect(lanes.running).toBe(3);
    await lanes.drained();
    expect([most, lanes.running]).toEqual([3, 0]);
  });

  test("a key asked for while it runs runs again after, never twice at once; asked twice before it starts, once", async () => {
    const runs: string[] = [];
    const gates = [gate(), gate()];
    const lanes = new Lanes<string>({
      concurrency: () => 4,
      run: async (key) => {
        runs.push(`${key} starts`);
        await gates[runs.filter((run) => run.startsWith(key)).length - 1]?.opened;
        runs.push(`${key} ends`);
      },
      onError: () => {},
    });
    lanes.request("k");
    lanes.request("k");
    lanes.request("k");
    // The second and third asks come while the first run is under way: one more run, after it, and no second lane.
    expect(lanes.running).toBe(1);
    gates[0]!.open();
    gates[1]!.open();
    await lanes.drained();
    expect(runs).toEqual(["k starts", "k ends", "k starts", "k ends"]);
    lanes.queue("once");
    lanes.queue("once");
    lanes.start();
    await lanes.drained();
    expect(runs.filter((run) => run === "once starts")).toHaveLength(1);
  });

  test("drained waits for the lanes started while it waits; a failed run is reported and its lane goes on", async () => {
    const errors: unknown[] = [];
    const done: number[] = [];
    const lanes = new Lanes<number>({
      concurrency: () => 1,
      run: async (key) => {
        await tick();
        if (key === 1) throw new Error("step failed");
        done.push(key);
        // Work that asks for more work: the lane that is draining takes it.
        if (key === 0) lanes.request(2);
      },
      onError: (error) => errors.push(error),
    });
    lanes.request(0);
    lanes.request(1);
    await lanes.drained();
    expect(done).toEqual([0, 2]);
    expect(errors).toEqual([new Error("step failed")]);
    expect(lanes.running).toBe(0);
  });
});
