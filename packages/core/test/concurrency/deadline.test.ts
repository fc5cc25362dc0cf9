import { describe, expect, test } from "bun:test";
import { rejectAtDeadline, withinDeadline } from "../../src/concurrency/deadline.ts";

const later = (ms: number) => performance.now() + ms;
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const never = new Promise<never>(() => {});

describe("rejectAtDeadline", () => {
  test("work done before the deadline is its answer", async () => {
    expect(await rejectAtDeadline(after(5, "done"), later(1000), () => new Error("late"))).toBe("done");
  });

  test("work failing before the deadline answers its own failure", async () => {
    const failure = new Error("own");
    await expect(rejectAtDeadline(Promise.reject(failure), later(1000), () => new Error("late"))).rejects.toBe(failure);
  });

  test("past the deadline it rejects with the timeout and aborts the expiry with that same error", async () => {
    const late = new Error("late");
    const expiry = new AbortController();
    await expect(rejectAtDeadline(never, later(20), () => late, expiry)).rejects.toBe(late);
    expect(expiry.signal.aborted).toBe(true);
    expect(expiry.signal.reason).toBe(late);
  });

  test("the timeout wins over the failure the abort causes in the work", async () => {
    const late = new Error("late");
    const expiry = new AbortController();
    const work = new Promise<never>((_, reject) => expiry.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    await expect(rejectAtDeadline(work, later(10), () => late, expiry)).rejects.toBe(late);
  });

  test("a deadline already passed rejects at once", async () => {
    const startedAt = performance.now();
    await expect(rejectAtDeadline(never, performance.now() - 5, () => new Error("late"))).rejects.toThrow("late");
    expect(performance.now() - startedAt).toBeLessThan(500);
  });
});

describe("withinDeadline", () => {
  test("work done before the deadline is its value", async () => {
    expect(await withinDeadline(after(5, 7), later(1000))).toBe(7);
  });

  test("past the deadline it is undefined, and the work's later failure is swallowed", async () => {
    let fail: (error: Error) => void = () => {};
    const work = new Promise<number>((_, reject) => {
      fail = reject;
    });
    expect(await withinDeadline(work, later(10))).toBeUndefined();
    fail(new Error("after the deadline"));
    await after(5, undefined);
  });
});
