import { describe, expect, test } from "bun:test";
import { MappingDefinition } from "@als/contract";
import { applyTextTransform, MAX_SELECTED_TEXT_CHARS, MAX_TEXT_BLOCKS, mapRecord, matchingRules, resolvePointer, upgradeTextPaths } from "@als/core";

// The mapping engine is pure: definitions are parsed by the contract's schema, records are any JSON.

const rule = (fields: object, name = "main") => ({ name, fields });
const definition = (...rules: object[]) => MappingDefinition.parse({ version: 1, rules });

describe("mapping definitions", () => {
  const valid = { version: 1, rules: [rule({ input: { path: "/input" }, user: { path: "/metadata/user_id" } })] };

  test("a complete definition parses", () => {
    expect(MappingDefinition.safeParse(valid).success).toBe(true);
    expect(
      MappingDefinition.safeParse({
        version: 1,
        rules: [
          rule({
            user: { path: "/u" },
            session: { path: "/s" },
            input: { path: "/in", scope: "current", transform: "first_text_block" },
            output: { path: "/out", transform: "text_blocks" },
            version: { path: "/v" },
            references: { path: "/metadata/als_retrieved_learnings" },
            source: { path: "/src" },
            timestamp: { path: "/t" },
            completion: { path: "/done" },
          }),
        ],
      }).success,
    ).toBe(true);
  });

  test.each([
    ["version 2", { ...valid, version: 2 }, "version"],
    ["no rules", { version: 1, rules: [] }, "rules"],
    ["21 rules", { version: 1, rules: Array.from({ length: 21 }, (_, i) => rule({ input: { path: "/i" } }, `r${i}`)) }, "rules"],
    ["a rule name used twice", { version: 1, rules: [rule({ input: { path: "/a" } }, "x"), rule({ output: { path: "/b" } }, "x")] }, "rules.1.name"],
    ["an empty rule name", { version: 1, rules: [rule({ input: { path: "/a" } }, " ")] }, "rules.0.name"],
    ["an unknown field key", { version: 1, rules: [rule({ input: { path: "/a" }, prompt: { path: "/p" } })] }, "rules.0.fields"],
    ["a pointer without a leading slash", { version: 1, rules: [rule({ input: { path: "input" } })] }, "rules.0.fields.input.path"],
    ["a pointer with a bad escape", { version: 1, rules: [rule({ input: { path: "/a~2b" } })] }, "rules.0.fields.input.path"],
    ["a scope other than current", { version: 1, rules: [rule({ input: { path: "/a", scope: "parent" } })] }, "rules.0.fields.input.scope"],
    ["an unknown transform", { version: 1, rules: [rule({ input: { path: "/a", transform: "last_text_block" } })] }, "rules.0.fields.input.transform"],
    [
      "a transform on user",
      { version: 1, rules: [rule({ input: { path: "/a" }, user: { path: "/u", transform: "text_blocks" } })] },
      "rules.0.fields.user.transform",
    ],
    ["a rule mapping neither input nor output", { version: 1, rules: [rule({ user: { path: "/u" } })] }, "rules.0.fields"],
    ["an unknown key on a field", { version: 1, rules: [rule({ input: { path: "/a", default: "x" } })] }, "rules.0.fields.input"],
    ["an unknown key on the definition", { ...valid, extra: true }, ""],
  ])("%s is refused, naming where", (_name, input, where) => {
    const parsed = MappingDefinition.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join("."))).toContain(where);
  });
});

describe("JSON pointers", () => {
  const doc = { a: { "b/c": 1, "m~n": 2, "": 3 }, arr: [10, 20], nil: null };
  test.each([
    ["", doc],
    ["/a/b~1c", 1],
    ["/a/m~0n", 2],
    ["/a/", 3],
    ["/arr/1", 20],
    ["/arr/01", undefined],
    ["/arr/-", undefined],
    ["/arr/2", undefined],
    ["/nil", null],
    ["/nil/x", undefined],
    ["/missing", undefined],
    ["/arr/0/x", undefined],
  ])("%s", (pointer, expected) => {
    expect(resolvePointer(doc, pointer)).toEqual(expected);
  });
});

describe("first_text_block", () => {
  const first = (value: unknown) => applyTextTransform("first_text_block", value);
  test.each([
    ["a string stays itself", "hello", { text: "hello" }],
    ["a blank string holds", "  ", { held: "no_usable_text" }],
    [
      "the first direct text, in order",
      [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
      { text: "one" },
    ],
    ["an untyped block counts", [{ text: "untyped" }], { text: "untyped" }],
    ["a bare string element counts", ["bare", { text: "later" }], { text: "bare" }],
    [
      "reasoning, tool and image blocks are skipped",
      [
        { type: "reasoning", text: "thinking" },
        { type: "tool_use", input: {} },
        { type: "image", source: "x" },
        { type: "text", text: "answer" },
      ],
      { text: "answer" },
    ],
    [
      "whitespace blocks are skipped",
      [
        { type: "text", text: " \n" },
        { type: "text", text: "real" },
      ],
      { text: "real" },
    ],
    ["nothing nested is searched", [{ content: [{ type: "text", text: "deep" }] }, { type: "text", text: { value: "obj" } }], { held: "no_usable_text" }],
    ["no usable answer holds", [{ type: "tool_use" }], { held: "no_usable_text" }],
    ["an empty array holds", [], { held: "no_usable_text" }],
    ["a number holds", 42, { held: "not_a_content_array" }],
    ["null holds", null, { held: "not_a_content_array" }],
  ])("%s", (_name, value, expected) => {
    expect(first(value)).toEqual(expected);
  });

  test("a conversation-shaped array is refused", () => {
    expect(
      first([
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ]),
    ).toMatchObject({ rejected: expect.stringContaining("conversation") });
  });

  test(`${MAX_TEXT_BLOCKS} blocks are read, one more is refused`, () => {
    const blocks = (n: number) => Array.from({ length: n }, () => ({ type: "text", text: "x" }));
    expect(first(blocks(MAX_TEXT_BLOCKS))).toEqual({ text: "x" });
    expect(first(blocks(MAX_TEXT_BLOCKS + 1))).toMatchObject({ rejected: expect.stringContaining(String(MAX_TEXT_BLOCKS)) });
  });

  test(`a selection of ${MAX_SELECTED_TEXT_CHARS} characters is kept, one more fails without falling through`, () => {
    expect(first([{ type: "text", text: "y".repeat(MAX_SELECTED_TEXT_CHARS) }])).toEqual({ text: "y".repeat(MAX_SELECTED_TEXT_CHARS) });
    expect(
      first([
        { type: "text", text: "y".repeat(MAX_SELECTED_TEXT_CHARS + 1) },
        { type: "text", text: "short" },
      ]),
    ).toMatchObject({
      rejected: expect.stringContaining("over"),
    });
    expect(first("z".repeat(MAX_SELECTED_TEXT_CHARS + 1))).toMatchObject({ rejected: expect.any(String) });
  });
});

describe("text_blocks", () => {
  const all = (value: unknown) => applyTextTransform("text_blocks", value);
  test("joins every usable direct text block with newlines", () => {
    expect(all([{ type: "text", text: "a" }, { type: "reasoning", text: "r" }, "b", { text: "c" }, { type: "text", text: " " }])).toEqual({ text: "a\nb\nc" });
  });
  test("holds without any, refuses a conversation, more than 100 blocks, or a joined text too long", () => {
    expect(all([{ type: "image" }])).toEqual({ held: "no_usable_text" });
    expect(all([{ role: "user", content: "x" }])).toMatchObject({ rejected: expect.any(String) });
    expect(all(Array.from({ length: MAX_TEXT_BLOCKS + 1 }, () => "x"))).toMatchObject({ rejected: expect.any(String) });
    const half = "h".repeat(MAX_SELECTED_TEXT_CHARS / 2);
    expect(all([half, half])).toMatchObject({ rejected: expect.any(String) });
  });
});

describe("mapping records", () => {
  const chat = definition(
    rule({
      user: { path: "/metadata/user_id" },
      session: { path: "/metadata/session" },
      input: { path: "/input/0/content" },
      output: { path: "/output", transform: "first_text_block" },
      version: { path: "/metadata/version" },
      timestamp: { path: "/created" },
      source: { path: "/metadata/source" },
      references: { path: "/metadata/als_retrieved_learnings" },
      completion: { path: "/metadata/done" },
    }),
  );
  const record = {
    created: "2026-11-01T10:00:00.000Z",
    input: [{ role: "user", content: "How do I reset my password?" }],
    output: [
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "Open Settings." },
    ],
    metadata: { user_id: 42, session: "s-1", version: "v2", source: "web", done: true, als_retrieved_learnings: [{ kind: "profile", learning_id: "p1" }] },
  };

  test("a record the rule fits is ready, every field read (an indexed path keeps working)", () => {
    expect(mapRecord(chat, record)).toEqual({
      status: "ready",
      rule: "main",
      interaction: {
        user_id: "42",
        session_id: "s-1",
        input: "How do I reset my password?",
        output: "Open Settings.",
        agent_version: "v2",
        source: "web",
        created_at: Date.parse("2026-11-01T10:00:00Z") / 1000,
        references: [{ kind: "profile", learning_id: "p1" }],
      },
    });
  });

  test("a record without the rule's dialogue is excluded", () => {
    expect(mapRecord(chat, { metadata: { user_id: "u" } })).toEqual({ status: "excluded" });
    expect(mapRecord(chat, { input: [], output: [] })).toEqual({ status: "excluded" });
  });

  test.each([
    ["no user", { ...record, metadata: { ...record.metadata, user_id: undefined } }, "user:missing"],
    ["an output without usable text", { ...record, output: [{ type: "tool_use" }] }, "output:no_usable_text"],
    ["an input that is not text", { ...record, input: [{ role: "user", content: { parts: [] } }] }, "input:not_text"],
    ["an unreadable timestamp", { ...record, created: "yesterday" }, "timestamp:unreadable"],
    ["an incomplete turn", { ...record, metadata: { ...record.metadata, done: false } }, "completion:incomplete"],
  ])("%s holds the record with its reason", (_name, value, reason) => {
    const mapped = mapRecord(chat, value);
    expect(mapped.status).toBe("held");
    expect(mapped.status === "held" && mapped.reasons).toContain(reason);
  });

  test("a timestamp in milliseconds or seconds reads as seconds", () => {
    const at = (created: unknown) => {
      const mapped = mapRecord(chat, { ...record, created });
      return mapped.status === "ready" ? mapped.interaction.created_at : mapped;
    };
    expect(at(1_790_000_000_000)).toBe(1_790_000_000);
    expect(at(1_790_000_000)).toBe(1_790_000_000);
  });

  test("a record two rules fit is held as overlapping", () => {
    const overlapping = definition(
      rule({ input: { path: "/q" }, user: { path: "/u" } }, "first"),
      rule({ input: { path: "/q" }, user: { path: "/u" } }, "second"),
    );
    expect(matchingRules(overlapping, { q: "x", u: "y" }).map((each) => each.name)).toEqual(["first", "second"]);
    expect(mapRecord(overlapping, { q: "x", u: "y" })).toEqual({ status: "held", rules: ["first", "second"], reasons: ["overlapping_rules"] });
  });
});

describe("upgrade-text (rule 10)", () => {
  const upgrade = (fields: object): object | null => {
    const upgraded = upgradeTextPaths(definition(rule(fields)));
    return upgraded === null ? null : upgraded.rules[0]!.fields;
  };
  test.each([
    ["a text pointer into a block", { output: { path: "/output/0/text" } }, { output: { path: "/output", transform: "first_text_block" } }],
    ["an indexed content block", { input: { path: "/messages/2/content/1" } }, { input: { path: "/messages/2/content", transform: "first_text_block" } }],
    [
      "a text pointer deeper in",
      { output: { path: "/choices/0/message/content/3/text" } },
      { output: { path: "/choices/0/message/content", transform: "first_text_block" } },
    ],
  ])("rewrites %s to the containing array", (_name, fields, expected) => {
    expect(upgrade(fields)).toEqual(expected);
  });

  test.each([
    ["a message of a list (not a content array)", { input: { path: "/input/0/content" } }],
    ["a field with a transform already", { output: { path: "/output/0/text", transform: "text_blocks" } }],
    ["a pointer without an index", { output: { path: "/output" } }],
    ["a top-level index", { input: { path: "/0" } }],
  ])("keeps %s: an unchanged mapping is a no-op", (_name, fields) => {
    expect(upgrade(fields)).toBeNull();
  });

  test("other fields are kept as they are", () => {
    expect(upgrade({ user: { path: "/users/0/text" }, output: { path: "/content/0/text" } })).toEqual({
      user: { path: "/users/0/text" },
      output: { path: "/content", transform: "first_text_block" },
    });
  });
});

describe("the engine never throws", () => {
  /** A deterministic pseudo-random generator (mulberry32): the same JSON every run. */
  function generator(seed: number) {
    let state = seed;
    const next = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const KEYS = ["input", "output", "content", "text", "type", "role", "0", "metadata", "user_id", "~", "/", ""];
    const json = (depth: number): unknown => {
      const kind = depth > 3 ? Math.floor(next() * 5) : Math.floor(next() * 7);
      switch (kind) {
        case 0:
          return null;
        case 1:
          return next() < 0.5;
        case 2:
          return pick([0, -1, 1.5, 1e13, Number.MAX_SAFE_INTEGER, 1_790_000_000]);
        case 3:
          return pick(["", " ", "text", "2026-11-01T10:00:00Z", "x".repeat(100_001), "reasoning", "user"]);
        case 4:
          return pick([[], {}]);
        case 5:
          return Array.from({ length: Math.floor(next() * (next() < 0.05 ? 120 : 5)) }, () => json(depth + 1));
        default:
          return Object.fromEntries(Array.from({ length: Math.floor(next() * 5) }, () => [pick(KEYS), json(depth + 1)]));
      }
    };
    return { json, pick };
  }

  const definitions = [
    definition(
      rule({
        input: { path: "/input", transform: "first_text_block" },
        output: { path: "/output", transform: "text_blocks" },
        user: { path: "/metadata/user_id" },
      }),
    ),
    definition(rule({ input: { path: "" }, timestamp: { path: "/0" }, completion: { path: "/type" }, references: { path: "/~1" } })),
    definition(rule({ output: { path: "/content", transform: "first_text_block" } }, "a"), rule({ input: { path: "/text" }, user: { path: "/role" } }, "b")),
  ];

  test("3,000 arbitrary JSON records map to one of the three outcomes", () => {
    const random = generator(20261126);
    for (let i = 0; i < 3_000; i++) {
      const value = random.json(0);
      for (const each of definitions) {
        const mapped = mapRecord(each, value);
        expect(["ready", "held", "excluded"]).toContain(mapped.status);
        for (const transform of ["first_text_block", "text_blocks"] as const) {
          const outcome = applyTextTransform(transform, value);
          expect(Object.keys(outcome)).toHaveLength(1);
        }
      }
    }
  });
});
