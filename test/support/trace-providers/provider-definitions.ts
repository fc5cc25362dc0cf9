import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ProviderName } from "@als/sources";
import addFormats from "ajv-formats";
import OpenAPIBackend, { type Operation } from "openapi-backend";
import type { Exchange } from "./provider-server.ts";

/**
 * The providers' own OpenAPI definitions, kept beside the repository in `../shared/providers/`
 * (never copied into it): the protocol servers and the adapters are checked against what the real
 * services accept and answer.
 */
const DEFINITION_FILES: Record<ProviderName, string> = {
  trace_provider_a: "braintrust-openapi.yaml",
  trace_provider_b: "langfuse-openapi.yml",
  trace_provider_c: "langsmith-openapi.json",
};

/** Requests a provider documents outside its OpenAPI file: Braintrust's BTQL (its query grammar is modelled by braintrust-server.ts). */
const OUTSIDE_DEFINITION: Partial<Record<ProviderName, readonly string[]>> = { trace_provider_a: ["POST /btql"] };

const REPOSITORY_ROOT = resolve(import.meta.dir, "../../..");

/**
 * `shared/providers` beside the repository (CI lays shared/ beside its clone); from a git worktree,
 * beside the main checkout the worktree belongs to.
 */
export function providerDefinitionsDir(): string {
  const roots = [REPOSITORY_ROOT];
  const common = Bun.spawnSync(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: REPOSITORY_ROOT });
  if (common.exitCode === 0) roots.push(dirname(common.stdout.toString().trim()));
  const candidates = roots.map((root) => resolve(root, "../shared/providers"));
  const found = candidates.find((dir) => existsSync(dir));
  if (found === undefined) {
    throw new Error(`the providers' API definitions are missing: expected ${candidates.join(" or ")} (shared/ beside the repository, as CI lays it out)`);
  }
  return found;
}

export interface DefinitionCheck {
  /** Requests matched to an operation of the definition and valid against it. */
  requests: number;
  /** Answers valid against the operation's schema for their status. */
  responses: number;
  /** Answers whose status the definition gives no schema for (a 429, say): the status is checked, the body is not. */
  unschemed: number;
  /** Requests outside the definition by design (BTQL): checked by the server's own model of the provider's documentation. */
  outside: number;
  /** What does not conform, one line each; empty when everything does. */
  violations: string[];
}

/** A provider's definition, routed and validated by openapi-backend (ajv with the standard formats: uuid, date-time, ...). */
export async function loadProviderDefinition(provider: ProviderName) {
  const path = join(providerDefinitionsDir(), DEFINITION_FILES[provider]);
  const text = await Bun.file(path).text();
  const definition = path.endsWith(".json") ? JSON.parse(text) : Bun.YAML.parse(text);
  // A few operations carry no operationId (LangSmith's /v2 routes); the validator indexes by it.
  for (const [route, item] of Object.entries(definition.paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation && typeof operation === "object" && "responses" in operation && !operation.operationId) operation.operationId = `${method} ${route}`;
    }
  }
  nullableAsJsonSchema(definition);
  const api = new OpenAPIBackend({
    definition,
    quick: true,
    strict: false,
    validate: true,
    customizeAjv: (ajv) => addFormats(ajv as never) as never,
  });
  await api.init();
  return {
    /** Checks each exchange: the request against its operation, the answer against that operation's response for its status. */
    check(exchanges: readonly Exchange[]): DefinitionCheck {
      const result: DefinitionCheck = { requests: 0, responses: 0, unschemed: 0, outside: 0, violations: [] };
      for (const { request, reply } of exchanges) {
        const name = `${request.method} ${request.path}`;
        if (OUTSIDE_DEFINITION[provider]?.includes(name)) {
          result.outside++;
          continue;
        }
        const shaped = {
          method: request.method,
          path: request.path,
          query: request.query.toString(),
          headers: Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)])),
          body: request.body,
        };
        const operation = api.matchOperation(shaped) as Operation | undefined;
        if (!operation) {
          result.violations.push(`${name}: no such operation in the definition`);
          continue;
        }
        const asked = api.validateRequest(shaped, operation);
        if (asked.valid) result.requests++;
        else result.violations.push(`${name} request: ${describe(asked.errors)}`);
        if (!hasResponseFor(operation, reply.status)) {
          // A status the definition does not list is fine only for the answers every API gives (rate limits, auth).
          if ([401, 403, 429].includes(reply.status)) result.unschemed++;
          else result.violations.push(`${name}: the definition lists no ${reply.status} answer`);
          continue;
        }
        const answered = api.validateResponse(reply.body, operation, reply.status);
        if (answered.valid) result.responses++;
        else result.violations.push(`${name} ${reply.status} answer: ${describe(answered.errors)}`);
      }
      return result;
    },
  };
}

/**
 * OpenAPI 3.0's `nullable` beside `$ref` or `allOf` (no `type`), which ajv refuses to compile, said
 * in JSON Schema: the schema or null. Everything else is left as the provider wrote it.
 */
function nullableAsJsonSchema(node: unknown): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) nullableAsJsonSchema(item);
    return;
  }
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) nullableAsJsonSchema(value);
  if (!("nullable" in schema) || "type" in schema) return;
  const { nullable, ...rest } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  if (nullable === true) schema.anyOf = [rest, { type: "null" }];
  else Object.assign(schema, rest);
}

function hasResponseFor(operation: Operation, status: number): boolean {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  return String(status) in responses || `${String(status)[0]}XX` in responses || "default" in responses;
}

function describe(errors: readonly { instancePath?: string; message?: string; params?: unknown }[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`)
    .join("; ");
}
