import { describe, expect, test } from "bun:test";
import { ExportRowCounter } from "../../src/cli/count-export-rows.ts";
import { type ImportLine, parseImportLine } from "../../src/cli/parse-import-line.ts";
import { planImportBatches, publishBodyOf } from "../../src/cli/plan-import-batches.ts";
import { formatDuration, ProgressBar } from "../../src/cli/progress-bar.ts";

// The import format, its batching, the export's row count and the progress line: pure logic, no server.

const parsed = (text: string, line: number) => parseImportLine(text, line) as ImportLine;

describe("the import format", () => {
  test("an interaction line splits into the request's fields and the interaction's", () => {
    const line = parsed('{"user_id":"ana","session_id":"s1","source":"crm","role":"User","content":"hi","wait_for_response":true}', 3);
    expect(line).toMatchObject({ line: 3, request: { user_id: "ana", session_id: "s1", source: "crm" }, interactions: [{ role: "User", content: "hi" }] });
  });

  test("a session line (the peer client's publish payload) carries its interactions as they are", () => {
    const line = parsed('{"user_id":"ana","session_id":"s1","interactions":[{"content":"a"},{"content":"b"}]}', 1);
    expect(line.request).toEqual({ user_id: "ana", session_id: "s1" });
    expect(line.interactions).toEqual([{ content: "a" }, { content: "b" }]);
  });

  test("what is no JSON object, or an empty session, is refused naming why; a blank line is skipped", () => {
    expect(parseImportLine("{oops", 7)).toMatchObject({ line: 7, message: expect.stringMatching(/^not JSON/) });
    expect(parseImportLine("[1,2]", 8)).toEqual({ line: 8, message: "a line must be one JSON object" });
    expect(parseImportLine('{"user_id":"a","interactions":[]}', 9)).toEqual({ line: 9, message: "interactions must be a list of at least one interaction" });
    expect(parseImportLine("   ", 10)).toBeNull();
  });

  test("lines of one request are batched in file order across interleaved sessions, up to the batch size", () => {
    const lines = [1, 2, 3, 4, 5, 6, 7].map((n) => parsed(JSON.stringify({ user_id: n % 2 ? "odd" : "even", session_id: "s", content: `c${n}` }), n));
    const batches = planImportBatches(lines, 2).map((batch) => batch.map((line) => line.line));
    expect(batches).toEqual([[1, 3], [2, 4], [5, 7], [6]]);
    expect(publishBodyOf(planImportBatches(lines, 2)[0]!)).toEqual({
      user_id: "odd",
      session_id: "s",
      interaction_data_list: [{ content: "c1" }, { content: "c3" }],
    });
  });

  test("key order does not separate two lines of one request; a session line larger than the batch goes alone", () => {
    const a = parsed('{"user_id":"u","session_id":"s","content":"x"}', 1);
    const b = parsed('{"session_id":"s","user_id":"u","content":"y"}', 2);
    const big = parsed(JSON.stringify({ user_id: "u", session_id: "s", interactions: [{}, {}, {}] }), 3);
    expect(planImportBatches([a, b, big], 2).map((batch) => batch.map((line) => line.line))).toEqual([[1, 2], [3]]);
  });
});

describe("the export's row count", () => {
  test("reads the head's counts and counts the rows of every section, however the text is cut", () => {
    const bundle = JSON.stringify({
      format: "als.user_export",
      version: 1,
      subject_ref: "s",
      counts: { requests: 1, interactions: 2 },
      requests: [{ id: 1, note: 'a "}" inside' }],
      interactions: [{ id: 1, nested: { deep: [1, { x: 2 }] } }, { id: 2 }],
      profiles: [],
    });
    for (const size of [1, 7, bundle.length]) {
      const counter = new ExportRowCounter();
      for (let at = 0; at < bundle.length; at += size) counter.feed(bundle.slice(at, at + size));
      expect(counter.total).toBe(3);
      expect(counter.rows).toBe(3);
    }
  });
});

describe("the progress line", () => {
  test("shows done/total, this run's rate and the time left; plain lines every 5% without a terminal", () => {
    const written: string[] = [];
    let now = 0;
    const bar = new ProgressBar({ isTTY: false, write: (text) => written.push(text) }, "import", "interactions", 1000, 200, () => now);
    now = 2000;
    bar.advance(10);
    bar.advance(40);
    now = 4000;
    bar.advance(50);
    expect(written).toEqual([
      "import  20% 200/1000 interactions · 0/s · ETA --\n",
      "import  25% 250/1000 interactions · 25/s · ETA 30s\n",
      "import  30% 300/1000 interactions · 25/s · ETA 28s\n",
    ]);
    bar.finish();
    expect(written).toHaveLength(3);
  });

  test("durations read as a person reads them", () => {
    expect([formatDuration(0.2), formatDuration(75), formatDuration(3700)]).toEqual(["1s", "1m15s", "1h01m"]);
  });
});
