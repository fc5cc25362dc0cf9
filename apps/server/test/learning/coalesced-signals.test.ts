import { expect, test } from "bun:test";
import { setTimeout as sleep } from "node:timers/promises";
import { until } from "@als/test-support/server-process.ts";
import { CoalescedSignals } from "../../src/coalesced-signals.ts";

/** A send whose calls wait until the test settles them, in the order they were made. */
function heldSends() {
  const calls: { key: string; settle: (error?: Error) => void }[] = [];
  let sending = 0;
  let mostAtOnce = 0;
  const send = (key: string) =>
    new Promise<void>((resolve, reject) => {
      sending++;
      mostAtOnce = Math.max(mostAtOnce, sending);
      calls.push({
        key,
        settle: (error) => {
          sending--;
          if (error) reject(error);
          else resolve();
        },
      });
    });
  return { calls, send, mostAtOnce: () => mostAtOnce };
}

/** Waits (up to 10 s) until `done` holds. */
const eventually = (done: () => boolean) => until(async () => done() || undefined, 10_000);

/** Lets a settled send's callbacks and the rest after it (0 ms in these tests) run. */
const settled = () => sleep(5);

const errors: { key: string; givenUp: boolean }[] = [];
function signalsWith(send: (key: string) => Promise<void>, options: { concurrency?: number; retryDelaysMs?: number[]; minIntervalMs?: number } = {}) {
  errors.length = 0;
  return new CoalescedSignals<string>({
    send,
    keyOf: (key) => key,
    concurrency: options.concurrency ?? 4,
    minIntervalMs: options.minIntervalMs ?? 0,
    retryDelaysMs: options.retryDelaysMs ?? [],
    onError: (key, _error, givenUp) => errors.push({ key, givenUp }),
  });
}

test("asked for again while its signal is being sent, a key gets one more signal for all of those requests", async () => {
  const held = heldSends();
  const signals = signalsWith(held.send);
  signals.request("ana");
  for (let i = 0; i < 10; i++) signals.request("ana");
  expect(held.calls.map((call) => call.key)).toEqual(["ana"]);
  held.calls[0]!.settle();
  await settled();
  expect(held.calls.map((call) => call.key)).toEqual(["ana", "ana"]);
  held.calls[1]!.settle();
  await settled();
  expect(held.calls).toHaveLength(2);
  expect(signals.size).toBe(0);
});

test("a key's signals are `minIntervalMs` apart, and the requests in between share the next one", async () => {
  // An interval long beside the test's own sleeps, so a machine busy with other suites cannot stretch
  // a sleep past it; what must happen is awaited, not timed.
  const intervalMs = 1_000;
  const sentAt: number[] = [];
  const signals = signalsWith(async () => void sentAt.push(performance.now()), { minIntervalMs: intervalMs });
  signals.request("ana");
  await sleep(5);
  for (let i = 0; i < 5; i++) signals.request("ana");
  await sleep(20);
  expect(sentAt).toHaveLength(1);
  await eventually(() => sentAt.length === 2);
  expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(intervalMs - 5);
  // Nothing asked since the second: its rest ends the key.
  await eventually(() => signals.size === 0);
  expect(sentAt).toHaveLength(2);
  // Closing cuts a rest short and sends what it owed at once.
  signals.request("bo");
  await sleep(5);
  signals.request("bo");
  expect(await signals.close(1_000)).toBe(0);
  expect(sentAt).toHaveLength(4);
});

test("asked for while its signal waits its turn, a key rides with that signal", async () => {
  const held = heldSends();
  const signals = signalsWith(held.send, { concurrency: 1 });
  signals.request("ana");
  for (let i = 0; i < 5; i++) signals.request("bo");
  held.calls[0]!.settle();
  await settled();
  held.calls[1]!.settle();
  await settled();
  expect(held.calls.map((call) => call.key)).toEqual(["ana", "bo"]);
  expect(signals.size).toBe(0);
});

test("no more than `concurrency` signals are sent at once, and every key is sent", async () => {
  const held = heldSends();
  const signals = signalsWith(held.send, { concurrency: 2 });
  const keys = ["a", "b", "c", "d", "e"];
  for (const key of keys) signals.request(key);
  // Each settled send lets the next key's signal start: the list grows as the loop walks it.
  for (let next = 0; next < held.calls.length; next++) {
    held.calls[next]!.settle();
    await settled();
  }
  expect(held.mostAtOnce()).toBe(2);
  expect(held.calls.map((call) => call.key).sort()).toEqual(keys);
});

test("a failed signal is retried after each delay, then given up and reported", async () => {
  let sends = 0;
  const signals = signalsWith(
    async () => {
      sends++;
      throw new Error("temporal is down");
    },
    { retryDelaysMs: [5, 10] },
  );
  signals.request("ana");
  await eventually(() => errors.length === 3);
  expect(sends).toBe(3);
  expect(errors).toEqual([
    { key: "ana", givenUp: false },
    { key: "ana", givenUp: false },
    { key: "ana", givenUp: true },
  ]);
  expect(signals.size).toBe(0);
});

test("a signal that fails once is sent by its retry, with the requests made meanwhile riding on it", async () => {
  let sends = 0;
  const signals = signalsWith(
    async () => {
      sends++;
      if (sends === 1) throw new Error("unavailable");
    },
    { retryDelaysMs: [20] },
  );
  signals.request("ana");
  await sleep(5);
  signals.request("ana");
  signals.request("ana");
  await eventually(() => signals.size === 0);
  expect(sends).toBe(2);
  expect(signals.size).toBe(0);
});

test("close waits for the signals still pending, and counts those it could not send in time", async () => {
  const quick = signalsWith(() => sleep(20));
  quick.request("ana");
  quick.request("bo");
  expect(await quick.close(1_000)).toBe(0);
  quick.request("cy");
  expect(quick.size).toBe(0);

  const held = heldSends();
  const stuck = signalsWith(held.send);
  stuck.request("ana");
  expect(await stuck.close(20)).toBe(1);
});
