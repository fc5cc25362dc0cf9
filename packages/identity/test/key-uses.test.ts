import { expect, test } from "bun:test";
import { KeyUses } from "../src/resolve-credential.ts";

// The app's memory of the key uses it wrote: a use within a minute of the last write is not written again.
test("a key's use is due at first, not within a minute of its write, and again after it", () => {
  const uses = new KeyUses();
  expect(uses.due("k1", 1_000)).toBe(true);
  uses.written("k1", 1_000);
  expect(uses.due("k1", 1_059)).toBe(false);
  expect(uses.due("k2", 1_059)).toBe(true);
  expect(uses.due("k1", 1_060)).toBe(true);
});
