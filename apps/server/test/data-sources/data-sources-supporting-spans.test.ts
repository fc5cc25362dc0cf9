import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SUPPORTING_SPAN_BYTES, SUPPORTING_SPAN_LIMIT } from "@als/sources";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY } from "@als/test-support/trace-providers/langsmith-server.ts";
import {
  braintrustData,
  braintrustTraffic,
  langfuseObservations,
  langfuseTraffic,
  langsmithTraffic,
  NESTED_MAPPING_FIELDS,
  nestedLearnings,
  SYNTHETIC_PROJECTS,
  type TrafficShape,
} from "@als/test-support/trace-providers/synthetic-traffic.ts";

// Agents whose conversation lives in child spans: per provider, over real HTTP against its protocol
// server, a backfill reads each eligible trace's spans (an LLM call, a retrieval, tool calls) and
// imports the dialogue from the LLM call, the tool calls and retrieval as tools_used and the
// retrieved learnings as retrieved_learnings; a trace with too many or too large spans is bounded
// and the status counts it.

const NOW = Math.floor(Date.now() / 1000);
/** Four agents' traces: a retrieval, two tool calls and the LLM call that answered (four spans each). */
const NESTED: TrafficShape = { start: NOW - 3600, count: 4, spacing: 60, nested: { tools: 2 } };
/** More tool calls than a trace's context keeps. */
const MANY: TrafficShape = { start: NOW - 3000, count: 1, nested: { tools: SUPPORTING_SPAN_LIMIT + 10 }, idPrefix: "many" };
/** Two tool answers that together outgrow a trace's context bytes. */
const LARGE: TrafficShape = { start: NOW - 2900, count: 1, nested: { tools: 2, toolOutputChars: Math.ceil(SUPPORTING_SPAN_BYTES * 0.6) }, idPrefix: "large" };
const SHAPES = [NESTED, MANY, LARGE];
const traffic = {
  a: braintrustData(SHAPES.flatMap(braintrustTraffic)),
  b: { traces: SHAPES.flatMap(langfuseTraffic), observations: SHAPES.flatMap(langfuseObservations) },
  c: { runs: SHAPES.flatMap(langsmithTraffic) },
};

let env: DataSourceService;
let owner: Tenant;
beforeAll(async () => {
  env = await startDataSourceService("supporting-spans", { traffic });
  env.svc.clock.now = NOW;
  owner = env.owner;
}, 120_000);
afterAll(() => env.close());

const PREFIXES = dataSourcePrefixes(() => owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => env.svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

const SOURCES = [
  { provider: "trace_provider_a", credentials: { api_key: BRAINTRUST_KEY } },
  { provider: "trace_provider_b", credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key } },
  { provider: "trace_provider_c", credentials: { api_key: LANGSMITH_KEY } },
] as const;

describe("supporting spans", () => {
  SOURCES.forEach((source, index) => {
    const prefix = PREFIXES[index % 2]!;
    test(`${source.provider} (${prefix.name}): nested traces become interactions with tools_used and retrieved learnings; too many or too large spans are bounded, and the status says so`, async () => {
      const connection = (
        await call(prefix, "POST", "/connections", { name: `nested ${source.provider}`, provider: source.provider, region: "us", ...source.credentials })
      ).body;
      const stream = (
        await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: SYNTHETIC_PROJECTS[source.provider] })
      ).body;
      const window = { start: new Date((NOW - 7200) * 1000).toISOString(), end: new Date(NOW * 1000).toISOString() };
      const accepted = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window });
      await env.svc.learningIdle();
      const sample = (await call(prefix, "GET", `/samples/${accepted.body.sample_id}`)).body;
      expect(sample.status).toBe("complete");
      // The sample's examples show the mapping what a collection reads: the root and its supporting context.
      const example = sample.records.find(
        (record: { trace: { supporting_spans?: { spans_read: number } } | null }) => record.trace?.supporting_spans?.spans_read === 4,
      );
      expect(example.trace.supporting_spans).toMatchObject({
        last_user_message: expect.stringMatching(/^Question /),
        final_answer: expect.stringMatching(/^Answer /),
      });

      const definition = { version: 1, rules: [{ name: "agent", fields: NESTED_MAPPING_FIELDS[source.provider] }] };
      const saved = await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
      const preview = (
        await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: saved.body.revision })
      ).body;
      expect(preview.ready).toBeGreaterThanOrEqual(NESTED.count);
      const validated = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/validate`, {
        sample_id: sample.sample_id,
        expected_revision: saved.body.revision,
        sample_digest: preview.sample_digest,
      });
      expect(validated.status).toBe(200);
      const current = (await call(prefix, "GET", "")).body.streams.find((candidate: { stream_id: string }) => candidate.stream_id === stream.stream_id);
      const activated = await call(prefix, "POST", `/streams/${stream.stream_id}/activate`, {
        stream_revision: current.revision,
        mapping_revision: 1,
        history_start: NOW - 7200,
        history_end: NOW - 1,
      });
      expect(activated.status).toBe(202);
      await env.svc.learningIdle();

      const status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
      expect(status.backfill.status).toBe("complete");
      // Four spans of each nested trace, all the many tool calls (under the read limit), four of the large trace.
      expect(status.backfill.counts).toEqual({
        read: 6,
        imported: 6,
        duplicates: 0,
        held: 0,
        excluded: 0,
        spans_read: NESTED.count * 4 + (SUPPORTING_SPAN_LIMIT + 12) + 4,
        spans_bounded: 2,
      });

      const receipts = (await call(prefix, "GET", `/streams/${stream.stream_id}/evidence`)).body.receipts as {
        request_id: string;
        user_id: string;
        trace_id: string;
      }[];
      expect(receipts).toHaveLength(6);
      const interactionsOf = async (receipt: { request_id: string; user_id: string }) =>
        (await env.svc.call("POST", "/api/get_interactions", { user_id: receipt.user_id, request_id: receipt.request_id }, bearer(owner.fullKey))).body
          .interactions as {
          role: string;
          content: string;
          tools_used: { tool_name: string; tool_data: Record<string, unknown>; status: string | null }[];
          retrieved_learnings: { kind: string; learning_id: string }[];
        }[];
      const turnsByLabel = new Map<string, Awaited<ReturnType<typeof interactionsOf>>>();
      for (const receipt of receipts) {
        const turns = await interactionsOf(receipt);
        const label = /^Question (.+)$/.exec(turns.find((turn) => turn.role === "User")?.content ?? "")?.[1];
        expect(label).toBeString();
        turnsByLabel.set(label!, turns);
      }

      // A nested trace: the dialogue from its LLM call, its retrieval and tool calls on the agent's turn.
      const nested = turnsByLabel.get(`${source.provider === "trace_provider_b" ? "lf" : source.provider === "trace_provider_a" ? "bt" : "ls"}-1`)!;
      const agent = nested.find((turn) => turn.role === "Agent")!;
      expect(agent.content).toMatch(/^Answer /);
      expect(agent.tools_used.map((tool) => tool.tool_name)).toEqual(["retrieve_learnings", "lookup_account", "lookup_order_1"]);
      expect(agent.tools_used[0]!.tool_data).toMatchObject({ kind: "retrieval" });
      expect(agent.tools_used[1]!).toMatchObject({ tool_data: { kind: "tool", input: expect.anything(), output: expect.anything() }, status: "success" });
      const label = /^Answer (.+)$/.exec(agent.content)![1]!;
      expect(agent.retrieved_learnings.map(({ kind, learning_id }) => ({ kind, learning_id }))).toEqual(
        nestedLearnings(label).map(({ kind, learning_id }) => ({ kind, learning_id })),
      );

      // Too many spans: the LLM call and the retrieval kept, tool calls up to the limit.
      const many = turnsByLabel.get("many-0")!.find((turn) => turn.role === "Agent")!;
      expect(many.content).toBe("Answer many-0");
      expect(many.tools_used).toHaveLength(SUPPORTING_SPAN_LIMIT - 1);
      // Too large: the second large tool answer left out, the rest kept.
      const large = turnsByLabel.get("large-0")!.find((turn) => turn.role === "Agent")!;
      expect(large.content).toBe("Answer large-0");
      expect(large.tools_used.map((tool) => tool.tool_name)).toEqual(["retrieve_learnings", "lookup_account"]);
    }, 60_000);
  });
});
