import { describe, expect, test } from "bun:test";
import { type Release, Slots } from "../../src/concurrency/slots.ts";

const later = (ms: number) => performance.now() + ms;

describe("Slots", () => {
  test("up to capacity are taken at once, without waiting", async () => {
    const slots = new Slots(2);
    const first = await slots.take(later(1000));
    const second = await slots.take(later(1000));
    expect(first).toBeFunction();
    expect(second).toBeFunction();
    expect(slots.taken).toBe(2);
    expect(slots.free).toBe(false);
  });

  test("a released slot passes to the waiters in the order they came", async () => {
    const slots = new Slots(1);
    const held = (await slots.take(later(1000)))!;
    const order: string[] = [];
    const waits = ["a", "b", "c"].map((name) =>
      slots.take(later(1000)).then((release) => {
        order.push(name);
        return release;
      }),
    );
    expect(slots.waiting).toBe(3);
    held();
    const a = (await waits[0])!;
    // The slot went to the waiter, not back to the pool: a newcomer cannot overtake b and c.
    expect(slots.taken).toBe(1);
    expect(slots.free).toBe(false);
    a();
    ((await waits[1]) as Release)();
    ((await waits[2]) as Release)();
    expect(order).toEqual(["a", "b", "c"]);
    expect(slots.taken).toBe(0);
    expect(slots.waiting).toBe(0);
  });

  test("releasing twice gives one slot back", async () => {
    const slots = new Slots(2);
    const release = (await slots.take(later(1000)))!;
    await slots.take(later(1000));
    release();
    release();
    expect(slots.taken).toBe(1);
  });

  test("a wait ends empty-handed at its deadline and leaves the queue", async () => {
    const slots = new Slots(1);
    await slots.take(later(1000));
    const startedAt = performance.now();
    expect(await slots.take(later(30))).toBeUndefined();
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(25);
    expect(slots.waiting).toBe(0);
    expect(slots.taken).toBe(1);
  });

  test("a free slot is granted even past the deadline: the deadline bounds waiting, not taking", async () => {
    const slots = new Slots(1);
    expect(await slots.take(performance.now() - 10)).toBeFunction();
  });

  test("giveUpAt ends the wait before the deadline", async () => {
    const slots = new Slots(1);
    await slots.take(later(1000));
    const startedAt = performance.now();
    expect(await slots.take(later(1000), { giveUpAt: later(20) })).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(500);
  });

  test("an aborted signal gives the waiter's place up, and the slot goes to the next one", async () => {
    const slots = new Slots(1);
    const held = (await slots.take(later(1000)))!;
    const expiry = new AbortController();
    const abandoned = slots.take(later(1000), { signal: expiry.signal });
    const next = slots.take(later(1000));
    expiry.abort(new Error("answered"));
    expect(await abandoned).toBeUndefined();
    expect(slots.waiting).toBe(1);
    held();
    expect(await next).toBeFunction();
  });

  test("dismiss ends the waits it picks, from the back, with each waiter's position and deadline", async () => {
    const slots = new Slots(1);
    await slots.take(later(1000));
    const deadlines = [later(5000), later(6000), later(7000)];
    const waits = deadlines.map((deadline) => slots.take(deadline));
    const seen: [number, number][] = [];
    slots.dismiss((position, deadline) => {
      seen.push([position, deadline]);
      return position >= 1;
    });
    expect(seen).toEqual([
      [2, deadlines[2]!],
      [1, deadlines[1]!],
      [0, deadlines[0]!],
    ]);
    expect(await waits[1]).toBeUndefined();
    expect(await waits[2]).toBeUndefined();
    expect(slots.waiting).toBe(1);
  });
});
