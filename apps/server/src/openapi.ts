import { AGENT_CREDENTIALS, type CredentialKind, type Endpoint, ERROR_TABLE, type ErrorCode, errorCodesOf, NoInput, rateClassOf } from "@als/contract";
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

/**
 * Exactly what authorizeRequest accepts: the declared kinds, a governance session wherever a login
 * session is (it is a member's session too), what a request without a credential is in
 * AUTH_MODE=local, and the checks made on every request of a governance-only endpoint.
 */
function credentialsNote(endpoint: Endpoint): string {
  if (endpoint.public) return "Credentials: none (an Authorization header is not read). Limited per client address as a sign-in attempt.";
  const declared: readonly CredentialKind[] = endpoint.credentials ?? AGENT_CREDENTIALS;
  const accepted = [...declared];
  if (declared.includes("login_session") && !declared.includes("governance_session")) accepted.push("governance_session");
  const names = accepted.map((kind) => CREDENTIAL_NAMES[kind]);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  const governanceToo = accepted.length > declared.length ? " (a governance session serves wherever a login session does)" : "";
  const withoutOne =
    declared.includes("api_key") || declared.includes("limited_api_key")
      ? "Without a credential: 401 in AUTH_MODE=required, the local organisation in AUTH_MODE=local."
      : "Without a credential: 401 in either AUTH_MODE.";
  const governance = declared.includes("governance_session")
    ? " Checked on every request: the member is an admin or owner and the organisation holds the governance entitlement (403 otherwise)."
    : "";
  const passwordCheck = rateClassOf(endpoint) === "sign_in" ? " The password check is a sign-in attempt: limited per client address and per account." : "";
  const header = endpoint.projectHeader === "optional" ? "X-Service-Project may be left out; sent, it" : "X-Service-Project";
  const project = endpoint.projectPathParam ? ` ${header} must equal {${endpoint.projectPathParam}}.` : "";
  return `Credentials: ${list}${governanceToo}. ${withoutOne}${governance}${passwordCheck}${project}`;
}

/** Every status an endpoint can answer besides its success, with the error codes behind each. */
function errorStatuses(endpoint: Endpoint): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(endpoint)) byStatus.set(ERROR_TABLE[code].status, [...(byStatus.get(ERROR_TABLE[code].status) ?? []), code]);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema; anyOf?: Schema[]; type?: unknown };

const acceptsNull = (schema: Schema) =>
  schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null")) || (schema.anyOf ?? []).some(acceptsNull);

/**
 * A body schema that says what the server takes: `null` for an optional field is read as omitted
 * (omitNullOptionals, for clients that send null for whatever they were not given), so every
 * optional property of every object, through lists and alternatives, also accepts null.
 */
function withNullForOptional(schema: Schema): Schema {
  const result: Schema = { ...schema };
  if (schema.properties) {
    result.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => {
        const inner = withNullForOptional(property);
        return [name, schema.required?.includes(name) || acceptsNull(inner) ? inner : { anyOf: [inner, { type: "null" }] }];
      }),
    );
  }
  if (schema.items) result.items = withNullForOptional(schema.items);
  if (schema.anyOf) result.anyOf = schema.anyOf.map(withNullForOptional);
  return result;
}

/**
 * Answered by the HTTP server itself, before the service reads the request (a request line or
 * headers beyond its limit, a long query string among them): any operation can meet it.
 */
const HEADERS_TOO_LARGE = { description: "Request Header Fields Too Large: the request line or headers exceed the HTTP server's limit (no body)" };

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
        : { requestBody: { required: true, content: { "application/json": { schema: withNullForOptional(body as Schema) } } } };
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
        "431": HEADERS_TOO_LARGE,
      },
    };
  }
  return { openapi: "3.1.0", info, paths, components: { securitySchemes: SECURITY_SCHEMES } };
}

export const DOCS_PAGE = `<!doctype html>
<html><head><title>Agent learning service API</title><meta charset="utf-8"/></head>
<body><script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script></body></html>`;
