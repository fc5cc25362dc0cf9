import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Endpoint } from "@als/contract";
import { toolCallOf } from "@als/core";
import { extractionRuns, pendingToolCalls } from "@als/db";
import { openSession } from "@als/identity";
import { sampleInput } from "@als/test-support/sample-input.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";
import { routeList } from "../../src/routes/index.ts";

// Every declared endpoint, called with every credential kind of organisation B and an input that
// names organisation A's users and ids: B reads nothing of A and changes nothing of A. Inputs are
// built from the declarations (sampleInput), so a newly declared endpoint is covered at once.

const UNLIMITED = { perSecond: 1_000_000, burst: 1_000_000 };
const CREDENTIAL_KINDS = ["full API key", "limited API key", "login session", "governance session"] as const;
type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

let svc: TestService;
/** Stands in for trace_provider_a: no endpoint of the matrix may reach a real provider. */
let braintrust: ProviderServer;
let a: Tenant;
let b: Tenant;
/** A's ids by the input field that names them. */
const known: Record<string, unknown> = {};
/** Text that only A's rows hold: none of it may reach B. */
const secrets: string[] = [];

const A_USER = "alice-of-a";
const A_TEXT = "ALPHA-ONLY hiking in the Dolomites every September";

beforeAll(async () => {
  const rate = { search: UNLIMITED, publish: UNLIMITED, write: UNLIMITED, read: UNLIMITED, sign_in: UNLIMITED };
  braintrust = await startBraintrustServer();
  svc = await startTestService({ authMode: "required", rateLimits: rate, dataSources: { providerBaseUrls: { "trace_provider_a:us": braintrust.url } } });
  a = await createTenant(svc.deps, "alpha");
  b = await createTenant(svc.deps, "beta");
  const asA = async (method: string, path: string, body: object) => {
    const response = await svc.call(method, path, body, bearer(a.fullKey));
    if (response.status >= 300) throw new Error(`seeding ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const published = await asA("POST", "/api/publish_interaction", {
    user_id: A_USER,
    session_id: "alpha-session",
    agent_version: "alpha-v1",
    interaction_data_list: [{ role: "user", content: A_TEXT }],
  });
  await asA("POST", "/api/add_user_profile", { user_profiles: [{ user_id: A_USER, content: A_TEXT }] });
  const userPlaybooks = await asA("POST", "/api/add_user_playbook", {
    user_playbooks: [{ user_id: A_USER, agent_version: "alpha-v1", request_id: published.request_id, content: A_TEXT, playbook_name: "alpha-name" }],
  });
  const agentPlaybooks = await asA("POST", "/api/add_agent_playbook", {
    agent_playbooks: [{ agent_version: "alpha-v1", trigger: A_TEXT, content: A_TEXT, playbook_status: "APPROVED" }],
  });
  const operation = await asA("POST", "/api/playbook_aggregation_operations", { request_id: "alpha-aggregation", agent_version: "alpha-v1" });
  await asA("POST", "/api/set_config", { window_size: 17 });
  await asA("POST", "/api/session_outcome", { session_id: "alpha-session", outcome: "success", occurred_at: 1, label: "alpha-label" });
  await asA("POST", "/api/retrieval_experiments", { experiment_id: "alpha-experiment", holdout_percentage: 50 });
  // Ended, so A's own search at the end is not a holdout's (empty) answer; its record and results stay.
  await asA("POST", "/api/retrieval_experiments/stop", { experiment_id: "alpha-experiment" });
  // A regenerate job of A's (it ends in error: this service has no LLM).
  const job = await asA("POST", "/api/evaluations/regenerate", { from_ts: 1, to_ts: svc.deps.now() });
  // A connection of A's with its stream.
  const connection = await asA("POST", "/api/data-sources/connections", { name: "alpha-source", api_key: BRAINTRUST_KEY });
  const stream = await asA("PUT", `/api/data-sources/connections/${connection.connection_id}/stream`, {
    revision: 1,
    external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
  });
  await asA("PUT", `/api/data-sources/streams/${stream.stream_id}/mapping`, {
    expected_revision: 0,
    definition: { version: 1, rules: [{ name: "alpha-rule", fields: { input: { path: "/input" } } }] },
  });
  // A question of A's extraction: raised as a run of the learning step raises it (this service has no LLM).
  const scopeOfA = { orgId: a.orgId, projectId: "default" };
  const question = toolCallOf(scopeOfA, A_USER, { question_text: `${A_TEXT}?`, answer_format: "yes/no", tags: [], context: null }, svc.deps.now());
  await svc.db.transaction(async (tx) => {
    const run = { run_id: "alpha-run", user_id: A_USER, extractor: "profile", from_seq: 0, through_seq: 1, messages: {}, created_at: svc.deps.now() };
    await extractionRuns.createRun(tx, scopeOfA, run);
    await pendingToolCalls.raiseToolCall(tx, scopeOfA, question, run.run_id);
  });
  await svc.learningIdle().catch(() => {});
  const stored = await svc.db.query<{ id: number }>("SELECT interaction_id AS id FROM interactions WHERE org_id = $1", [a.orgId]);
  const [profile] = await svc.db.query<{ profile_id: string }>("SELECT profile_id FROM profiles WHERE org_id = $1", [a.orgId]);
  const [key] = await svc.db.query<{ prefix: string }>("SELECT prefix FROM api_keys WHERE org_id = $1 LIMIT 1", [a.orgId]);
  const [owner] = await svc.db.query<{ email: string }>("SELECT email FROM members WHERE member_id = $1", [a.ownerId]);
  Object.assign(known, {
    user_id: A_USER,
    session_id: "alpha-session",
    request_id: published.request_id,
    request_ids: [published.request_id],
    agent_version: "alpha-v1",
    playbook_name: "alpha-name",
    profile_id: profile!.profile_id,
    profile_ids: [profile!.profile_id],
    user_playbook_id: userPlaybooks.user_playbook_ids?.[0] ?? userPlaybooks.playbook_ids?.[0],
    user_playbook_ids: userPlaybooks.user_playbook_ids ?? userPlaybooks.playbook_ids,
    agent_playbook_id: agentPlaybooks.agent_playbook_ids?.[0] ?? agentPlaybooks.playbook_ids?.[0],
    agent_playbook_ids: agentPlaybooks.agent_playbook_ids ?? agentPlaybooks.playbook_ids,
    interaction_id: stored[0]!.id,
    interaction_ids: stored.map((row) => row.id),
    operation_id: operation.operation_id,
    pending_tool_call_id: question.id,
    answer: "beta's answer",
    experiment_id: "alpha-experiment",
    connection_id: connection.connection_id,
    external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    stream_id: stream.stream_id,
    sample_digest: "0".repeat(64),
    preview_digest: "0".repeat(64),
    definition: { version: 1, rules: [{ name: "beta-rule", fields: { input: { path: "/input" } } }] },
    org_id: a.orgId,
    member_id: a.ownerId,
    prefix: key!.prefix,
    email: owner!.email,
    query: "hiking Dolomites",
    // B's own text where an endpoint writes some; time ranges that hold A's rows.
    content: "beta's own note",
    start_time: 1,
    end_time: 4_102_444_800,
    search_mode: "vector",
    threshold: 0,
    // Evaluation windows: closed, within a year, holding A's sessions.
    from_ts: svc.deps.now() - 300 * 86_400,
    to_ts: svc.deps.now(),
    job_id: job.job_id,
  });
  expect(Object.entries(known).filter(([, value]) => value === undefined)).toEqual([]);
  // Not ids a caller may choose (profile_id, request_id): B may make its own rows under the same values.
  secrets.push(A_TEXT, a.orgId, a.ownerId, key!.prefix, owner!.email, "alpha-aggregation", "alpha-label");
  secrets.push(operation.operation_id, job.job_id, connection.connection_id, "alpha-source", "alpha-rule");
}, 120_000);
afterAll(async () => {
  await svc.close();
  await braintrust.close();
});

/** One digest per table of every row organisation A owns, discovered from the catalog (new tables are covered). */
async function digestOfA(): Promise<Record<string, string>> {
  const tables = await svc.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE column_name = 'org_id' AND table_schema = current_schema() ORDER BY table_name`,
  );
  const digest: Record<string, string> = {};
  for (const { table_name: table } of tables) {
    // A key's last use moves when A uses it; A does not use its keys while the matrix runs.
    const [row] = await svc.db.query<{ rows: number; hash: string | null }>(
      `SELECT count(*)::int AS rows, md5(string_agg(t::text, '|' ORDER BY t::text)) AS hash FROM ${table} t WHERE org_id = $1`,
      [a.orgId],
    );
    digest[table] = `${row!.rows}:${row!.hash}`;
  }
  return digest;
}

/** B's credential of that kind; sessions fresh for each call, so a logout or password change cannot spoil the next. */
async function credentialOfB(kind: CredentialKind): Promise<string> {
  const owner = { member_id: b.ownerId, org_id: b.orgId };
  switch (kind) {
    case "full API key":
      return b.fullKey;
    case "limited API key":
      return b.limitedKey;
    case "login session":
      return (await openSession(svc.deps, owner, "login")).token;
    case "governance session":
      return (await openSession(svc.deps, owner, "governance")).token;
  }
}

function requestOf(endpoint: Endpoint): { path: string; body?: unknown } {
  const input = sampleInput(endpoint, known);
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(known[name] ?? input[name] ?? "x")));
  if (endpoint.method !== "GET") return { path, body: input };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input)) for (const each of Array.isArray(value) ? value : [value]) query.append(name, String(each));
  return { path: query.size > 0 ? `${path}?${query}` : path };
}

/** Statuses an answer to B may have: its own (empty) data, or a refusal; never a fault. */
const ALLOWED = new Set([200, 201, 202, 400, 401, 403, 404, 409, 422, 501, 503]);

describe("another organisation's credentials reach nothing of organisation A", () => {
  test("every declared endpoint × every credential kind of B: nothing of A is read or changed", async () => {
    const before = await digestOfA();
    // A holds rows in every kind of table the matrix could reach.
    expect(Object.values(before).filter((digest) => !digest.startsWith("0:")).length).toBeGreaterThanOrEqual(10);
    const matrix: string[] = [];
    const problems: string[] = [];
    // What B sent so far: B's own invitation of an address, listed back to B later, tells B nothing it did not send.
    let sentByB = "";
    for (const { endpoint } of routeList) {
      // An input its schema refuses would only test validation: every endpoint must get a valid one.
      expect({ endpoint: endpoint.procedure, valid: endpoint.input.safeParse(sampleInput(endpoint, known)).success }).toEqual({
        endpoint: endpoint.procedure,
        valid: true,
      });
      const { path, body } = requestOf(endpoint);
      const statuses: number[] = [];
      for (const kind of CREDENTIAL_KINDS) {
        const response = await svc.call(endpoint.method, path, body, bearer(await credentialOfB(kind)));
        statuses.push(response.status);
        const text = JSON.stringify(response.body ?? "");
        // B's own input echoed back ("profile p1 not found") tells B nothing it did not send.
        sentByB += ` ${path} ${JSON.stringify(body ?? "")}`;
        const leaked = secrets.filter((secret) => text.includes(secret) && !sentByB.includes(secret));
        if (leaked.length > 0) problems.push(`${endpoint.procedure} with B's ${kind} returned A's ${leaked.join(", ")}`);
        if (!ALLOWED.has(response.status)) problems.push(`${endpoint.procedure} with B's ${kind}: ${response.status} ${text.slice(0, 300)}`);
      }
      matrix.push(`${endpoint.method.padEnd(6)} ${endpoint.path.padEnd(52)} ${statuses.join(" ")}`);
    }
    await svc.learningIdle().catch(() => {});
    console.log(`${"".padEnd(59)} full limited login governance\n${matrix.join("\n")}`);
    expect(problems).toEqual([]);
    expect(await digestOfA()).toEqual(before);
    // A's own credentials still work and still see A's data.
    const own = await svc.call("POST", "/api/search", { query: "hiking Dolomites", user_id: A_USER, search_mode: "vector", threshold: 0 }, bearer(a.fullKey));
    expect(own.body.profiles.map((p: { content: string }) => p.content)).toContain(A_TEXT);
    expect((await svc.call("GET", "/api/account/me", undefined, bearer(a.loginSession))).status).toBe(200);
    expect(routeList.length).toBeGreaterThan(70);
  }, 180_000);
});
