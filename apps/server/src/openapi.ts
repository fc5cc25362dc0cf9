import { AGENT_CREDENTIALS, type CredentialKind, type Endpoint, ERROR_TABLE, type ErrorCode, errorCodesOf, NoInput } from "@als/contract";
import { z } from "zod";

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
}

const ErrorBody = {
  type: "object",
  required: ["error", "detail"],
  properties: {
    error: { type: "string", description: "the stable error code", enum: Object.keys(ERROR_TABLE) },
    detail: {
      description: "what is wrong: a message, or for 422 the list of problems, each with `loc` (the field path, list indexes included), `msg` and `type`",
    },
    message: { type: "string", description: "422: every problem in one line" },
    reason: { type: "string", description: "the contract's reason code where it names one (search_deadline, backstop_timeout, config_reset_incomplete, ...)" },
    correlation_id: { type: "string" },
    component: { type: "string", description: "503: the part that is unavailable (storage, embedding, llm, reranker)" },
  },
} as const;

/**
 * Every credential is a bearer token; which kinds an endpoint accepts is said in its description,
 * since OpenAPI cannot tell an API key from a session token of the same scheme.
 */
const SECURITY_SCHEMES = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`als_…`, bound to one project; full or limited access) or a session token (`alss_…` login, `alsg_…` governance). In AUTH_MODE=local a request without one is the local organisation.",
  },
} as const;

const CREDENTIAL_NAMES: Record<CredentialKind, string> = {
  api_key: "full-access API key",
  limited_api_key: "limited API key",
  login_session: "login session",
  governance_session: "governance session",
};

function credentialsNote(endpoint: Endpoint): string {
  if (endpoint.public) return "No credential.";
  const accepted = (endpoint.credentials ?? AGENT_CREDENTIALS).map((kind) => CREDENTIAL_NAMES[kind]).join(", ");
  const header = endpoint.projectHeader === "optional" ? "X-Service-Project may be left out; sent, it" : "X-Service-Project";
  const project = endpoint.projectPathParam ? ` ${header} must equal {${endpoint.projectPathParam}}.` : "";
  return `Credentials: ${accepted}.${project}`;
}

/** Every status an endpoint can answer besides its success, with the error codes behind each. */
function errorStatuses(endpoint: Endpoint): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(endpoint)) byStatus.set(ERROR_TABLE[code].status, [...(byStatus.get(ERROR_TABLE[code].status) ?? []), code]);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** The JSON body of an input: its fields but the path's; null when the path carries them all (`DELETE /keys/{prefix}`). */
function bodyOf(input: { properties?: Record<string, unknown>; required?: string[] }, pathParams: string[]) {
  if (pathParams.length === 0) return input;
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([name]) => !pathParams.includes(name)));
  if (Object.keys(properties).length === 0) return null;
  return { ...input, properties, required: (input.required ?? []).filter((name) => !pathParams.includes(name)) };
}

/** The header of endpoints declared `idempotencyKey` (the IETF HTTP API draft's Idempotency-Key). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "A key of the client's choosing (1 to 255 printable ASCII characters, bare or as a quoted string) that makes a retry safe: the same key and body within 24 hours get the first answer again instead of writing twice, also when the first attempt's answer was lost or is still coming; the same key on another body answers 422 idempotency_key_reused. Keys are kept per project and erased with the user.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/** OpenAPI 3.1 of every endpoint, generated from the same declarations and zod schemas that serve requests. */
export function buildOpenApi(endpoints: Endpoint[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    const input = jsonSchema(endpoint.input, "input") as { properties?: Record<string, unknown>; required?: string[] };
    // `:name` path parameters are OpenAPI's `{name}`.
    const pathParams = [...endpoint.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    const parameters: Record<string, unknown>[] = Object.entries(input.properties ?? {})
      .filter(([name]) => endpoint.method === "GET" || pathParams.includes(name) || endpoint.queryFields?.includes(name))
      .map(([name, schema]) => ({
        name,
        in: pathParams.includes(name) ? "path" : "query",
        required: pathParams.includes(name) || (endpoint.method === "GET" && (input.required?.includes(name) ?? false)),
        schema,
      }));
    if (endpoint.idempotencyKey) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
    const body = bodyOf(input, pathParams);
    const requestBody =
      endpoint.method === "GET" || endpoint.input === NoInput || body === null
        ? {}
        : { requestBody: { required: true, content: { "application/json": { schema: body } } } };
    const success = String(endpoint.successStatus ?? 200);
    const errors = Object.fromEntries(
      [...errorStatuses(endpoint)].map(([status, codes]) => [
        String(status),
        { description: `error: ${codes.join(", ")}`, content: { "application/json": { schema: ErrorBody } } },
      ]),
    );
    const path = endpoint.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][endpoint.method.toLowerCase()] = {
      operationId: endpoint.procedure,
      summary: endpoint.summary,
      description: credentialsNote(endpoint),
      security: endpoint.public ? [] : [{ bearer: [] }],
      tags: [endpoint.procedure.split(".")[0]],
      ...(parameters.length > 0 && { parameters }),
      ...requestBody,
      responses: {
        [success]: { description: success === "202" ? "Accepted" : "OK", content: { "application/json": { schema: jsonSchema(endpoint.output, "output") } } },
        ...errors,
      },
    };
  }
  return { openapi: "3.1.0", info, paths, components: { securitySchemes: SECURITY_SCHEMES } };
}

export const DOCS_PAGE = `<!doctype html>
<html><head><title>Agent learning service API</title><meta charset="utf-8"/></head>
<body><script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script></body></html>`;
