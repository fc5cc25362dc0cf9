import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CredentialKind, type Endpoint, errorCodesOf, rateClassOf } from "@als/contract";
import { openSession } from "@als/identity";
import { PROVIDER_HOSTS } from "@als/sources";
import { testMode } from "@als/test-support/database.ts";
import { HOSTILE_KEYS, hostileField, hostileParam, hostileScalar, percentEncoded, stringLiteral } from "@als/test-support/hostile-json.ts";
import { sampleInput } from "@als/test-support/sample-input.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import fc from "fast-check";
import { z } from "zod";
import { routeList } from "../../src/routes/index.ts";

// Hostile input at every declared endpoint, over REST and tRPC, with a credential each accepts (so
// the input is read, not refused at the door): whatever arrives, the answer is a 2xx, a 4xx or the
// 503/501 the endpoint declares, never another 5xx. Inputs start from a valid request built from
// the declaration (sampleInput) and are then bent: fields replaced, hostile keys added or repeated,
// the whole body swapped, path and query parameters mangled. Seeded, so a failure reproduces:
// FUZZ_SEED=<seed printed> FUZZ_RUNS=<n>.

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_128);
/**
 * Random cases per endpoint (each also gets its valid sample over REST and tRPC): about 4,000
 * requests embedded, 1,800 in full mode, where each request costs several round trips to PostgreSQL.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? (testMode === "full" ? 10 : 25));
const UNLIMITED = { perSecond: 1_000_000, burst: 1_000_000 };

let svc: TestService;
let tenant: Tenant;

beforeAll(async () => {
  // No case may reach a real trace provider: every provider host is a port nobody listens on.
  const providerBaseUrls = Object.fromEntries(
    Object.entries(PROVIDER_HOSTS).flatMap(([provider, regions]) => Object.keys(regions).map((region) => [`${provider}:${region}`, "http://127.0.0.1:9"])),
  );
  svc = await startTestService({
    authMode: "required",
    rateLimits: { search: UNLIMITED, publish: UNLIMITED, write: UNLIMITED, read: UNLIMITED, sign_in: UNLIMITED },
    dataSources: { providerBaseUrls },
  });
  tenant = await createTenant(svc.deps, "fuzzed");
});
afterAll(() => svc.close());

interface Case {
  via: "rest" | "trpc";
  method: string;
  path: string;
  body?: string;
}

/** The credential an endpoint accepts first, in the order a caller most likely holds them. */
function credentialFor(endpoint: Endpoint): CredentialKind | null {
  if (endpoint.public) return null;
  const accepted = endpoint.credentials ?? ["api_key"];
  return (["api_key", "limited_api_key", "login_session", "governance_session"] as const).find((kind) => accepted.includes(kind)) ?? null;
}

/** Sessions are opened again when a case ended them (a logout is a valid input too). */
const tokens = new Map<CredentialKind, string>();
async function tokenFor(kind: CredentialKind, fresh: boolean): Promise<string> {
  if (kind === "api_key") return tenant.fullKey;
  if (kind === "limited_api_key") return tenant.limitedKey;
  if (fresh || !tokens.has(kind)) {
    const owner = { member_id: tenant.ownerId, org_id: tenant.orgId };
    tokens.set(kind, (await openSession(svc.deps, owner, kind === "login_session" ? "login" : "governance")).token);
  }
  return tokens.get(kind)!;
}

function casesOf(endpoint: Endpoint, seed: number): Case[] {
  // The tenant's own project: a case refused only because the project does not exist tests nothing.
  const sample = sampleInput(endpoint, { project_id: "default" });
  const pathParams = [...endpoint.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const fields = Object.entries(sample).filter(([name]) => !pathParams.includes(name));
  // Every declared field name, optional ones too: replacing them is where the schemas are tested.
  const declared = z.toJSONSchema(endpoint.input, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, unknown> };
  const names = [...new Set([...Object.keys(declared.properties ?? {}), ...fields.map(([name]) => name), "user_id"])];

  const path = fc
    .tuple(
      ...pathParams.map((name) =>
        fc.oneof({ weight: 3, arbitrary: fc.constant(encodeURIComponent(String(sample[name] ?? "x"))) }, { weight: 1, arbitrary: hostileParam }),
      ),
    )
    .map((values) => pathParams.reduce((at, name, index) => at.replace(`:${name}`, values[index]!), endpoint.path));
  // The body as text: the valid sample (or nothing of it), then extra pairs that replace, repeat or
  // add keys; or the sample with one field at the edge of what it takes.
  const asObject = (pairs: (readonly [string, string])[]) => `{${pairs.map(([name, value]) => `${stringLiteral(name)}:${value}`).join(",")}}`;
  const sampled = fields.map(([name, value]) => [name, JSON.stringify(value)] as const);
  const body = fc.oneof(
    { weight: 1, arbitrary: hostileField },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.boolean(), fc.array(fc.tuple(fc.constantFrom(...names, ...HOSTILE_KEYS), hostileField), { minLength: 1, maxLength: 4 }))
        .map(([keep, extra]) => asObject([...(keep ? sampled : []), ...extra])),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...names), hostileScalar)
        .map(([name, value]) => asObject([...sampled.filter(([each]) => each !== name), [name, value]])),
    },
  );
  const hostileQuery = fc
    .tuple(fc.boolean(), fc.array(fc.tuple(fc.constantFrom(...names, ...HOSTILE_KEYS).map(percentEncoded), hostileParam), { minLength: 1, maxLength: 3 }))
    .map(([keep, extra]) => {
      const pairs = keep
        ? fields.flatMap(([name, value]) =>
            (Array.isArray(value) ? value : [value]).map((each) => [encodeURIComponent(name), encodeURIComponent(String(each))]),
          )
        : [];
      return [...pairs, ...extra].map(([name, value]) => `${name}=${value}`).join("&");
    });
  const trpcPath = `/trpc/${endpoint.procedure}`;
  const rest: fc.Arbitrary<Case> =
    endpoint.method === "GET"
      ? fc.tuple(path, hostileQuery).map(([at, search]) => ({ via: "rest", method: "GET", path: `${at}?${search}` }))
      : fc.tuple(path, body).map(([at, text]) => ({ via: "rest", method: endpoint.method, path: at, body: text }));
  const trpc: fc.Arbitrary<Case> = body.map((text) =>
    endpoint.method === "GET"
      ? { via: "trpc", method: "GET", path: `${trpcPath}?input=${percentEncoded(text)}` }
      : { via: "trpc", method: "POST", path: trpcPath, body: text },
  );
  // The valid sample itself, over both transports, before the random cases: its answer must match the declaration too.
  const valid = asObject(sampled);
  const samplePath = pathParams.reduce((at, name) => at.replace(`:${name}`, encodeURIComponent(String(sample[name] ?? "x"))), endpoint.path);
  const query = new URLSearchParams(
    fields.flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((each): [string, string] => [name, String(each)])),
  );
  const validCases: Case[] = [
    endpoint.method === "GET"
      ? { via: "rest", method: "GET", path: `${samplePath}?${query}` }
      : { via: "rest", method: endpoint.method, path: samplePath, body: valid },
    endpoint.method === "GET"
      ? { via: "trpc", method: "GET", path: `${trpcPath}?input=${encodeURIComponent(JSON.stringify(sample))}` }
      : { via: "trpc", method: "POST", path: trpcPath, body: JSON.stringify(sample) },
  ];
  return [...validCases, ...fc.sample(fc.oneof({ weight: 4, arbitrary: rest }, { weight: 1, arbitrary: trpc }), { seed, numRuns: RUNS })];
}

/** The error code of an answer, REST or tRPC. */
function errorCodeOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text);
    return body?.error?.data?.appError?.error ?? body?.error;
  } catch {
    return undefined;
  }
}

interface Tally {
  endpoints: Set<string>;
  cases: number;
  ok: number;
  refused: number;
  unavailable: number;
  unexpected: number;
}

describe("no input crashes a request", () => {
  // Bounded by RUNS cases per endpoint: 20–25 s on its own, up to three times that beside the other suites.
  test("hostile JSON, keys, query and path parameters at every declared endpoint answer 2xx, 4xx or a declared 503/501", async () => {
    const tallies = new Map<string, Tally>();
    const unexpected: string[] = [];
    const startedAt = performance.now();
    for (const [index, { endpoint }] of routeList.entries()) {
      const kind = credentialFor(endpoint);
      const declared = errorCodesOf(endpoint);
      const className = `${rateClassOf(endpoint)}${kind === null ? "" : ` (${kind})`}`;
      const tally = tallies.get(className) ?? { endpoints: new Set(), cases: 0, ok: 0, refused: 0, unavailable: 0, unexpected: 0 };
      tallies.set(className, tally);
      tally.endpoints.add(endpoint.procedure);
      for (const each of casesOf(endpoint, SEED + index)) {
        const send = async (fresh: boolean) => {
          const headers: Record<string, string> = kind === null ? {} : bearer(await tokenFor(kind, fresh));
          if (endpoint.projectPathParam !== undefined) headers["x-service-project"] = "default";
          if (each.body !== undefined) headers["content-type"] = "application/json";
          const response = await svc.app.handle(new Request(`http://localhost${each.path}`, { method: each.method, headers, body: each.body ?? null }));
          return { status: response.status, text: await response.text() };
        };
        let answer = await send(false);
        if (answer.status === 401 && kind !== null && kind !== "api_key" && kind !== "limited_api_key") answer = await send(true);
        tally.cases++;
        const code = errorCodeOf(answer.text);
        if (answer.status < 400) tally.ok++;
        else if (answer.status < 500) tally.refused++;
        else if ((answer.status === 503 || answer.status === 501) && code !== undefined && declared.has(code as never)) tally.unavailable++;
        else {
          tally.unexpected++;
          unexpected.push(
            `${endpoint.procedure} via ${each.via}: ${each.method} ${each.path.slice(0, 300)} ${each.body?.slice(0, 300) ?? ""} → ${answer.status} ${answer.text.slice(0, 300)}`,
          );
        }
      }
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const rows = [...tallies.entries()].sort(([a], [b]) => a.localeCompare(b));
    console.log(`input fuzz (seed ${SEED}, ${RUNS} cases per endpoint, ${testMode}): ${seconds.toFixed(1)} s`);
    for (const [name, t] of rows) {
      console.log(
        `  ${name.padEnd(32)} ${String(t.endpoints.size).padStart(3)} endpoints ${String(t.cases).padStart(5)} cases: ${t.ok} 2xx, ${t.refused} 4xx, ${t.unavailable} declared 503/501, ${t.unexpected} unexpected`,
      );
    }
    expect(unexpected).toEqual([]);
    // Every endpoint was reached, and most cases got past the door to the input (not all refused by a credential check).
    expect(rows.reduce((sum, [, t]) => sum + t.endpoints.size, 0)).toBe(routeList.length);
    for (const [, t] of rows) expect(t.cases).toBe(t.endpoints.size * (RUNS + 2));
  }, 180_000);
});
