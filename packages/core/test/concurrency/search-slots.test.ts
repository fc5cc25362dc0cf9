import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import type { Release } from "../../src/concurrency/slots.ts";
import { SearchSlots } from "../../src/search/search-admission.ts";

const later = (ms: number) => performance.now() + ms;
const open = () => new AbortController().signal;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SearchSlots (search admission over Slots)", () => {
  test("without a measured pace a waiting search is never refused early: only its deadline ends the wait", async () => {
    const slots = new SearchSlots(1);
    await slots.take(later(5000), open());
    const waits = Array.from({ length: 2 * availableParallelism() + 2 }, () => slots.take(later(40), open()));
    const startedAt = performance.now();
    expect(await Promise.all(waits)).toEqual(waits.map(() => undefined));
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(30);
    // Unmeasured, a refused search is told to retry after a whole search deadline.
    expect(slots.retryAfterSeconds()).toBe(5);
  });

  test("once the pace is measured, a search that could not finish by its deadline behind those ahead is refused at once", async () => {
    const slots = new SearchSlots(1);
    const ahead = 2 * availableParallelism() + 1;
    let holder = (await slots.take(later(60_000), open()))!;
    const queued = Array.from({ length: ahead + 3 }, () => slots.take(later(60_000), open()));
    // Three searches finish about 10 ms apart while others wait: the pace is measured.
    for (const waiting of queued.slice(0, 3)) {
      await pause(10);
      holder();
      holder = (await waiting) as Release;
    }
    // At least (ahead + 2) paces of 10 ms to go, 50 ms left: refused now, not when its wait would end (50 ms less a pace).
    const startedAt = performance.now();
    expect(await slots.take(later(50), open())).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(30);
    // A search with time enough waits in turn.
    const patient = slots.take(later(60_000), open());
    holder();
    for (const waiting of queued.slice(3)) ((await waiting) as Release)();
    expect(await patient).toBeFunction();
  });

  test("a waiting search whose signal aborts gives its place up", async () => {
    const slots = new SearchSlots(1);
    const held = (await slots.take(later(5000), open()))!;
    const expiry = new AbortController();
    const waiting = slots.take(later(5000), expiry.signal);
    expiry.abort(new Error("answered"));
    expect(await waiting).toBeUndefined();
    held();
    expect(await slots.take(later(5000), open())).toBeFunction();
  });
});
