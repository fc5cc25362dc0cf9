import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEmbedder } from "@als/ai";
import { DEFAULT_STORAGE_TIMEOUTS } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { startEmbeddingsServer } from "../../../../packages/ai/test/openai-embeddings-test-server.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** A raw request, for bodies no well-behaved client would send. */
async function raw(method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await svc.app.handle(new Request(`http://localhost${path}`, { method, headers, ...(body !== undefined && { body }) }));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const profileCount = async (userId: string) => (await svc.call("GET", `/api/storage_stats?user_id=${userId}`)).body.profile_count as number;

describe("null for an optional field means omitted", () => {
  test("search_profiles with every optional field null answers as if they were not sent", async () => {
    await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "nulls", content: "Keeps bees on the roof" }] });
    const response = await svc.call("POST", "/api/search_profiles", {
      user_id: "nulls",
      query: "hobbies with insects",
      generated_from_request_id: null,
      start_time: null,
      end_time: null,
      top_k: null,
      source: null,
      custom_feature: null,
      tags: null,
      threshold: null,
      enable_reformulation: null,
      search_mode: null,
    });
    expect(response.status).toBe(200);
    expect(response.body.user_profiles.map((p: { content: string }) => p.content)).toEqual(["Keeps bees on the roof"]);
  });

  test("null inside list items is omitted too, and a required field that is null is still a 422", async () => {
    const added = await svc.call("POST", "/api/add_user_profile", {
      user_profiles: [{ user_id: "nulls", content: "Walks to work", tags: null, source: null }],
    });
    expect(added.status).toBe(200);
    const missing = await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: null, content: "x" }] });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain("user_profiles[0].user_id");
  });

  test("a body of null is an empty body for an endpoint without input", async () => {
    const response = await svc.call("DELETE", "/api/delete_all_agent_playbooks", "null");
    expect(response.status).toBe(200);
  });
});

describe("text that storage cannot keep faithfully is refused, never rewritten", () => {
  test("a NUL character answers 422 naming the field, and nothing is stored", async () => {
    const before = await profileCount("u");
    const response = await svc.call("POST", "/api/add_user_profile", {
      user_profiles: [
        { user_id: "u", content: "ok" },
        { user_id: "u", content: "bad\u0000text" },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("user_profiles[1].content");
    expect(response.body.message).toContain("NUL");
    expect(await profileCount("u")).toBe(before);
  });

  test("a NUL character in a field name or a query parameter answers 422 too", async () => {
    const inKey = await svc.call("POST", "/api/search_profiles", { user_id: "u", "que\u0000ry": "x" });
    expect(inKey.status).toBe(422);
    expect(inKey.body.message).toContain("field name");
    const inQuery = await svc.call("GET", "/api/get_all_profiles?user_id=a%00b");
    expect(inQuery.status).toBe(422);
    expect(inQuery.body.message).toContain("user_id");
  });

  test("a lone surrogate answers 422, so two user ids can never collide as U+FFFD", async () => {
    const response = await raw("POST", "/api/add_user_profile", '{"user_profiles":[{"user_id":"ana\\ud800","content":"x"}]}');
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("user_profiles[0].user_id");
    expect(response.body.message).toContain("surrogate");
  });

  test("a surrogate pair (an emoji) is stored and read back as sent", async () => {
    await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "emoji-😀", content: "Loves 🐝 bees" }] });
    const read = await svc.call("POST", "/api/get_profiles", { user_id: "emoji-😀" });
    expect(read.body.user_profiles[0].content).toBe("Loves 🐝 bees");
  });

  test("bytes that are not UTF-8 answer 422", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"user_profiles":[{"user_id":"u","content":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}]}'),
    ]);
    const response = await raw("POST", "/api/add_user_profile", bytes);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("UTF-8");
  });
});

describe("bodies", () => {
  test("a body over the limit answers 413 and nothing is stored", async () => {
    const small = buildApp({ deps: svc.deps, log: createLogger("error"), mode: "embedded", maxBodyBytes: 2048 });
    const body = JSON.stringify({ user_profiles: [{ user_id: "big", content: "x".repeat(4096) }] });
    const response = await small.handle(
      new Request("http://localhost/api/add_user_profile", { method: "POST", headers: { "content-type": "application/json" }, body }),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: string }).error).toBe("payload_too_large");
    expect((await svc.call("POST", "/api/get_profiles", { user_id: "big" })).body.user_profiles).toHaveLength(0);
  });

  test("a body longer than its declared length, or streamed with none, is held to the limit as it is", async () => {
    const small = buildApp({ deps: svc.deps, log: createLogger("error"), mode: "embedded", maxBodyBytes: 2048 });
    const body = JSON.stringify({ user_profiles: [{ user_id: "sly", content: "x".repeat(4096) }] });
    const understated = await small.handle(
      new Request("http://localhost/api/add_user_profile", { method: "POST", headers: { "content-type": "application/json", "content-length": "100" }, body }),
    );
    expect(understated.status).toBe(413);
    const bytes = new TextEncoder().encode(body);
    const streamed = await small.handle(
      new Request("http://localhost/api/add_user_profile", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 1024) controller.enqueue(bytes.subarray(at, at + 1024));
            controller.close();
          },
        }),
      }),
    );
    expect(streamed.status).toBe(413);
    expect((await svc.call("POST", "/api/get_profiles", { user_id: "sly" })).body.user_profiles).toHaveLength(0);
    // Within the limit, both ways read the whole body.
    const fits = JSON.stringify({ user_profiles: [{ user_id: "sly", content: "fits" }] });
    const declared = await small.handle(
      new Request("http://localhost/api/add_user_profile", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(new TextEncoder().encode(fits).length) },
        body: fits,
      }),
    );
    expect(declared.status).toBe(200);
    expect((await svc.call("POST", "/api/get_profiles", { user_id: "sly" })).body.user_profiles.map((p: { content: string }) => p.content)).toEqual(["fits"]);
  });

  test("a body that is not declared JSON answers 415 (a cross-origin form or text/plain post cannot reach a handler)", async () => {
    const body = JSON.stringify({ user_profiles: [{ user_id: "plain", content: "x" }] });
    expect((await raw("POST", "/api/add_user_profile", body, { "content-type": "text/plain" })).status).toBe(415);
    expect((await raw("POST", "/api/add_user_profile", body, { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await raw("POST", "/trpc/profiles.add", body, { "content-type": "text/plain" })).status).toBe(415);
    expect((await svc.call("POST", "/api/get_profiles", { user_id: "plain" })).body.user_profiles).toHaveLength(0);
    expect(
      (
        await raw("POST", "/api/add_user_profile", JSON.stringify({ user_profiles: [{ user_id: "json", content: "x" }] }), {
          "content-type": "application/json; charset=utf-8",
        })
      ).status,
    ).toBe(200);
  });

  test("an undeclared method on a served path answers 405 with Allow; an unknown path stays 404", async () => {
    const wrong = await raw("GET", "/api/add_user_profile");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect(wrong.body.error).toBe("method_not_allowed");
    const withParam = await raw("DELETE", "/api/playbook_aggregation_operations/some-id");
    expect(withParam.status).toBe(405);
    expect(withParam.headers.get("allow")).toBe("GET");
    expect((await raw("GET", "/api/nothing_here")).status).toBe(404);
  });
});

describe("search text is bounded", () => {
  test("a query over 8,192 characters answers 422 naming the field, on every search", async () => {
    const long = "why ".repeat(2100);
    for (const [path, body] of [
      ["/api/search", { query: long }],
      ["/api/search_profiles", { user_id: "u", query: long }],
      ["/api/search_user_playbooks", { query: long }],
      ["/api/search_agent_playbooks", { query: long }],
      ["/api/search_interactions", { user_id: "u", query: long }],
    ] as const) {
      const response = await svc.call("POST", path, body);
      expect(response.status).toBe(422);
      expect(response.body.message).toContain("query: must be at most 8192 characters");
    }
    expect((await svc.call("POST", "/api/search", { query: "why ".repeat(2000) })).status).toBe(200);
  });
});

describe("bulk writes", () => {
  test("a bulk add beyond one statement's 65,535 parameters is written whole", async () => {
    // Its own service, whose statements may run past the default 30 s and the request past the
    // default 60 s: embedding 4,700 texts and writing their vector and full-text index entries take
    // that long on a machine loaded by the other suites, and what is checked here is that the rows
    // are split over statements of one transaction. Embedded
    // beside the in-process index, as an embedded server runs by default: PGlite then keeps no
    // HNSW index of the learnings, whose upkeep on its one thread would take most of the time.
    const bulk = await startTestService({
      storageTimeouts: { ...DEFAULT_STORAGE_TIMEOUTS, statementMs: 110_000 },
      backstopMs: 220_000,
      ...(testMode === "embedded" && { vectorIndex: "in-process" as const }),
    });
    try {
      // 14 parameters a profile: one statement holds at most 4,680 of them.
      const count = 4_700;
      const user_profiles = Array.from({ length: count }, (_, i) => ({ user_id: "bulk", content: `fact ${i}` }));
      const response = await bulk.call("POST", "/api/add_user_profile", { user_profiles });
      expect(response.status).toBe(200);
      expect(response.body.added_count).toBe(count);
      expect((await bulk.call("POST", "/api/get_profiles", { user_id: "bulk", top_k: 1000 })).body.user_profiles).toHaveLength(1000);
      expect((await bulk.call("GET", "/api/storage_stats?user_id=bulk")).body.profile_count).toBe(count);
    } finally {
      await bulk.close();
    }
  }, 240_000);

  test("a profile_id given twice in one batch answers 422 naming the repeat", async () => {
    const id = crypto.randomUUID();
    const response = await svc.call("POST", "/api/add_user_profile", {
      user_profiles: [
        { user_id: "dup", content: "a", profile_id: id },
        { user_id: "dup", content: "b", profile_id: id },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("user_profiles[1].profile_id: repeats the profile_id of user_profiles[0]");
  });
});

describe("infrastructure failures answer 503 naming the part", () => {
  test("the embedding provider failing answers 503 embedding_unavailable, not 500", async () => {
    const server = startEmbeddingsServer();
    try {
      const embedder = await createEmbedder({ kind: "openai", baseUrl: server.baseUrl, model: "test", dimensions: 384 });
      const app = buildApp({ deps: { ...svc.deps, embedder }, log: createLogger("error"), mode: "embedded", strictResponses: true });
      server.plan({ status: 400 });
      const response = await app.handle(
        new Request("http://localhost/api/add_user_profile", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ user_profiles: [{ user_id: "emb-down", content: "x" }] }),
        }),
      );
      expect(response.status).toBe(503);
      const body = (await response.json()) as Record<string, string>;
      expect(body).toMatchObject({ error: "embedding_unavailable", component: "embedding", detail: "the embedding model is unavailable" });
      expect(body.correlation_id).toBeString();
      expect(JSON.stringify(body)).not.toContain("planned 400");
    } finally {
      server.stop();
    }
  });
});

describe("keys a plain object inherits are field names like any other", () => {
  test("__proto__, constructor and prototype in a body answer 422 unknown field where fields are closed, even before a login", async () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const login = await raw("POST", "/api/account/login", `{"email":"a@example.com","password":"wrong-password","${key}":{"x":1}}`);
      expect(login.status).toBe(422);
      expect(login.body.message).toBe(`${key}: unknown field`);
      const read = await raw("POST", "/api/get_interactions", `{"user_id":"u","${key}":{"top_k":null}}`);
      expect(read.status).toBe(422);
      expect(read.body.message).toBe(`${key}: unknown field`);
    }
  });

  test("where unknown fields are ignored, those keys are ignored too", async () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const search = await raw("POST", "/api/search_profiles", `{"user_id":"u","query":"bees","${key}":{"top_k":null}}`);
      expect(search.status).toBe(200);
    }
  });

  test("a __proto__ object cannot supply a field the body lacks", async () => {
    const response = await raw("POST", "/api/add_user_profile", '{"__proto__":{"user_profiles":[{"user_id":"proto","content":"x"}]}}');
    expect(response.status).toBe(422);
    expect((await svc.call("POST", "/api/get_profiles", { user_id: "proto" })).body.user_profiles).toHaveLength(0);
  });

  test("a query parameter named constructor or __proto__ is an unknown parameter, not a crash", async () => {
    for (const key of ["constructor", "__proto__", "prototype"]) {
      const response = await raw("GET", `/api/learning_status?request_id=x&${key}=x&${key}=y`);
      expect(response.status).toBeLessThan(500);
      expect(response.status === 200 || response.body.message.includes(key)).toBe(true);
    }
  });

  test("tRPC input with those keys answers as REST does", async () => {
    const response = await raw("POST", "/trpc/interactions.get", '{"user_id":"u","constructor":{"top_k":1}}');
    expect(response.status).toBe(422);
    expect(response.body.error.data.appError.message).toBe("constructor: unknown field");
  });
});

describe("path parameters follow the rules of bodies", () => {
  test("a NUL character in a path parameter answers 422 naming it, before the project is looked up", async () => {
    const project = await raw("GET", "/api/projects/%00/onboarding");
    expect(project.status).toBe(422);
    expect(project.body.message).toBe("path.project_id: must not contain the NUL character (U+0000)");
    const operation = await raw("GET", "/api/playbook_aggregation_operations/a%00b");
    expect(operation.status).toBe(422);
    expect(operation.body.message).toContain("path.operation_id");
  });

  test("a path parameter that is not percent-encoded UTF-8 answers 422 naming it, never standing for the default project", async () => {
    for (const bad of ["%ZZ", "%ED%A0%80", "%E0%A4%A"]) {
      const response = await raw("GET", `/api/projects/${bad}/onboarding`);
      expect(response.status).toBe(422);
      expect(response.body.message).toBe("path.project_id: is not percent-encoded UTF-8");
    }
  });
});

describe("time bounds are Unix seconds within the safe integers", () => {
  test("a numeric string beyond them answers 422 naming the field on every time-filtered read", async () => {
    for (const [path, body] of [
      ["/api/get_agent_playbooks", {}],
      ["/api/get_interactions", { user_id: "u" }],
      ["/api/get_agent_success_evaluation_results", {}],
      ["/api/get_retrieved_learning_evaluation_results", {}],
    ] as const) {
      const response = await svc.call("POST", path, { ...body, start_time: 148949150670, end_time: "661508424948720109216" });
      expect(response.status).toBe(422);
      expect(response.body.message).toStartWith("end_time:");
    }
  });

  test("a date that does not exist answers 422 naming the field", async () => {
    const response = await svc.call("POST", "/api/get_agent_playbooks", { end_time: "2020-02-30T00:00:00Z" });
    expect(response.status).toBe(422);
    expect(response.body.message).toStartWith("end_time:");
  });

  test("a cost report whose default start would fall before the epoch, or that spans too long, answers 422", async () => {
    const atEpoch = await svc.call("POST", "/api/learning/costs", { end_time: 0, start_time: null });
    expect(atEpoch.status).toBe(422);
    expect(atEpoch.body.message).toBe("end_time: must be after 0 (the earliest start)");
    const early = await svc.call("POST", "/api/learning/costs", { end_time: 100 });
    expect(early.status).toBe(200);
    expect(early.body.start_time).toBe(0);
    const far = await svc.call("POST", "/api/learning/costs", { end_time: 9007199254740990, start_time: 0 });
    expect(far.status).toBe(422);
    expect(far.body.message).toContain("start_time");
    const late = await svc.call("POST", "/api/learning/costs", { end_time: 9007199254740990, start_time: 9007199254740000 });
    expect(late.status).toBe(200);
  });
});

describe("nesting is bounded", () => {
  test("a body nested deeper than 100 levels answers 422, over REST and tRPC, however deep", async () => {
    for (const depth of [101, 100_000]) {
      const nested = `{"user_id":"u","tags":${"[".repeat(depth)}${"]".repeat(depth)}}`;
      const rest = await raw("POST", "/api/get_interactions", nested);
      expect(rest.status).toBe(422);
      expect(rest.body.message).toContain("body is nested deeper than 100 levels");
      const trpc = await raw("POST", "/trpc/interactions.get", nested);
      expect(trpc.status).toBe(422);
      const query = await raw(
        "GET",
        `/trpc/interactions.learningStatus?input=${encodeURIComponent(`{"request_id":${"[".repeat(depth)}${"]".repeat(depth)}}`)}`,
      );
      expect(query.status).toBe(422);
    }
    expect((await raw("POST", "/api/get_interactions", `{"user_id":"u","tags":${"[".repeat(99)}${"]".repeat(99)}}`)).body.message).not.toContain("nested");
  });
});
