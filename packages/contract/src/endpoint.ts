import type { z } from "zod";
import type { ErrorCode } from "./errors.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/**
 * Who may call an endpoint. `api_key` is a project's full-access key, `limited_api_key` a
 * limited one; `login_session` is a member's dashboard session; `governance_session` a session of an
 * admin whose organisation holds the governance entitlement. In local mode a request without any
 * credential is the local organisation's `default` project whatever an endpoint accepts.
 */
export type CredentialKind = "api_key" | "limited_api_key" | "login_session" | "governance_session";

/** The credentials of an agent-facing endpoint: every API key, and the dashboard acting for a member. */
export const AGENT_CREDENTIALS = ["api_key", "limited_api_key", "login_session"] as const satisfies readonly CredentialKind[];

/** One endpoint as its resource declares it; `defineResource` adds the procedure name. */
export interface EndpointSpec<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** The REST path; `:name` segments are path parameters, read into the input. */
  path: string;
  summary: string;
  /** What the endpoint reads: the query string of a GET, the JSON body otherwise. `NoInput`: nothing. */
  input: In;
  /** Input fields a caller of a body-carrying method may send in the query string instead (`?wait_for_response=true`). */
  queryFields?: readonly string[];
  /** The success body: an allow-list, every response is parsed through it before it is sent. */
  output: Out;
  /** The success status when it is not 200 (202 for work accepted to run later). */
  successStatus?: number;
  /**
   * How long the endpoint may take when it is longer than the server's backstop: the server answers
   * 504 past it, and the client waits that long before it gives up.
   */
  timeoutMs?: number;
  /** Errors the endpoint answers beyond those every endpoint can (see COMMON_ERRORS). */
  errors?: readonly ErrorCode[];
  /** Unset: AGENT_CREDENTIALS. */
  credentials?: readonly CredentialKind[];
  /** Anyone may call it (register, log in): no credential is needed, and none is read. */
  public?: true;
  /**
   * The path parameter naming the project (`/api/projects/:project_id/...`): X-Service-Project must
   * equal it, and an API key must be bound to it.
   */
  projectPathParam?: string;
  /** "optional": X-Service-Project may be left out on this projectPathParam endpoint (the URL names the project); sent, it must equal it. */
  projectHeader?: "optional";
  /**
   * A client may send an Idempotency-Key header (the IETF HTTP API draft): a retry with the same key
   * and body gets the first answer again instead of writing twice; the same key on another body
   * answers 422 idempotency_key_reused. Keys are kept IDEMPOTENCY_KEY_TTL_SECONDS per project.
   */
  idempotencyKey?: true;
  /** Which per-key rate limit it counts against; unset: `sign_in` for public endpoints, `read` for GET, `write` otherwise. */
  rateClass?: RateClass;
}

/**
 * Classes of the token-bucket rate limit, each configured on its own: per credential in each API
 * process, except `sign_in` (the public endpoints, and every endpoint that checks a password),
 * counted per client address in the database, for every API process together.
 */
export type RateClass = "search" | "publish" | "write" | "read" | "sign_in";

export function rateClassOf(endpoint: Endpoint): RateClass {
  return endpoint.rateClass ?? (endpoint.public ? "sign_in" : endpoint.method === "GET" ? "read" : "write");
}

export type Endpoint<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType> = EndpointSpec<In, Out> & {
  /** `resource.action`: the tRPC procedure, the OpenAPI operationId and the client's method. */
  procedure: string;
};

/**
 * Errors any endpoint can answer: bad input, a missing or bad credential (401), a credential or a
 * browser origin or host name refused (403), a project the caller's organisation does not have
 * (404), the credential's rate limit (429), storage down, the server's backstop, a fault of ours.
 */
export const COMMON_ERRORS = [
  "validation_error",
  "unauthorized",
  "forbidden",
  "not_found",
  "rate_limited",
  "storage_unavailable",
  "backstop_timeout",
  "internal_error",
] as const satisfies readonly ErrorCode[];

/**
 * Every error an endpoint can answer: those all endpoints can (input that breaks its schema
 * included: an endpoint without input refuses fields), the body rules (413, 415) when it reads a
 * body, and its own. OpenAPI lists them; strict servers (tests) refuse to answer any other.
 */
export function errorCodesOf(endpoint: Endpoint): Set<ErrorCode> {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(endpoint.errors ?? [])]);
  if (endpoint.method !== "GET") for (const code of ["payload_too_large", "unsupported_media_type"] as const) codes.add(code);
  if (endpoint.idempotencyKey) codes.add("idempotency_key_reused");
  return codes;
}

/** Names each endpoint of a resource `resource.action` after its key. */
export function defineResource<const R extends string, const S extends Record<string, EndpointSpec>>(
  resource: R,
  specs: S,
): { [A in keyof S & string]: S[A] & { procedure: `${R}.${A}` } } {
  return Object.fromEntries(Object.entries(specs).map(([action, spec]) => [action, { ...spec, procedure: `${resource}.${action}` }])) as never;
}
