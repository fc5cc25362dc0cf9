/**
 * The one error type of the service. Domain code throws `AppError(code, message, details)`;
 * ERROR_TABLE maps each code to its HTTP status and tRPC code, and `errorBody` builds the JSON body.
 */
export const ERROR_TABLE = {
  bad_request: { status: 400, trpc: "BAD_REQUEST" },
  unauthorized: { status: 401, trpc: "UNAUTHORIZED" },
  forbidden: { status: 403, trpc: "FORBIDDEN" },
  not_found: { status: 404, trpc: "NOT_FOUND" },
  method_not_allowed: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  conflict: { status: 409, trpc: "CONFLICT" },
  erasure_in_progress: { status: 409, trpc: "CONFLICT" },
  payload_too_large: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  unsupported_media_type: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  validation_error: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  idempotency_key_reused: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  rate_limited: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  internal_error: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  not_implemented: { status: 501, trpc: "NOT_IMPLEMENTED" },
  storage_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  embedding_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  llm_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  mail_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  reranker_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  capacity_deadline_exceeded: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  overloaded: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  provider_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  search_deadline: { status: 504, trpc: "TIMEOUT" },
  backstop_timeout: { status: 504, trpc: "TIMEOUT" },
  admission_timeout: { status: 504, trpc: "TIMEOUT" },
} as const satisfies Record<string, { status: number; trpc: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** One problem of a 422: the path of the offending field (list indexes included) and what is wrong. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra body fields the contract names for this error (reason, request_id, correlation_id, ...). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  static validation(issues: FieldIssue[]): AppError {
    const message = issues.map((issue) => `${formatLoc(issue.loc)}: ${issue.msg}`).join("; ");
    return new AppError("validation_error", message, { issues });
  }

  static notFound(what: string): AppError {
    return new AppError("not_found", `${what} not found`);
  }
}

/** `["body", "user_profiles", 0, "content"]` → `user_profiles[0].content` */
export function formatLoc(loc: (string | number)[]): string {
  return loc
    .filter((part, index) => !(index === 0 && (part === "body" || part === "query")))
    .reduce<string>((text, part) => (typeof part === "number" ? `${text}[${part}]` : text ? `${text}.${part}` : part), "");
}

/**
 * The JSON body of an error response: `detail` is the human message (or the 422 issue list, as
 * FastAPI-style clients expect), `error` the stable code, plus the contract's named extra fields.
 */
export function errorBody(error: AppError): Record<string, unknown> {
  const { issues, ...extra } = error.details as { issues?: FieldIssue[] };
  if (issues) return { error: error.code, message: error.message, detail: issues };
  // The contract gives a publish refused at admission a detail object (reason, request_id).
  if (PUBLISH_ADMISSION_CODES.has(error.code)) return { error: error.code, message: error.message, detail: { message: error.message, ...extra }, ...extra };
  return { error: error.code, detail: error.message, ...extra };
}

const PUBLISH_ADMISSION_CODES: ReadonlySet<ErrorCode> = new Set(["capacity_deadline_exceeded", "admission_timeout"]);

/**
 * A failure of an infrastructure part (storage, the embedding model, the LLM provider, the reranker)
 * that names the ERROR_TABLE code it answers as; the part's own message may hold internals (a
 * connection string, a provider's reply), so the client gets PUBLIC_MESSAGES instead.
 */
interface InfrastructureError extends Error {
  errorCode: ErrorCode;
  /** Why, in a word the contract or the operator can act on (storage: connection, read_only, disk_full, timeout...). */
  reason?: string;
  /** Body fields the contract names for this error (a publish's request_id). */
  details?: Record<string, unknown>;
}

const PUBLIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  storage_unavailable: "storage is unavailable",
  embedding_unavailable: "the embedding model is unavailable",
  llm_unavailable: "the LLM provider is unavailable",
};

const isInfrastructureError = (error: unknown): error is InfrastructureError =>
  error instanceof Error && typeof (error as { errorCode?: unknown }).errorCode === "string" && (error as InfrastructureError).errorCode in ERROR_TABLE;

/**
 * The one translation of a thrown value into what the client sees, for REST and tRPC alike.
 * `unexpected` is set when the value is not one of ours (a bug: log it, never echo it).
 */
export function toAppError(error: unknown, correlationId: string): { appError: AppError; unexpected?: unknown } {
  if (error instanceof AppError) return { appError: error };
  if (isInfrastructureError(error)) {
    const message = PUBLIC_MESSAGES[error.errorCode] ?? error.message;
    const component = error.errorCode.endsWith("_unavailable") ? { component: error.errorCode.replace(/_unavailable$/, "") } : {};
    const reason = typeof error.reason === "string" ? { reason: error.reason } : {};
    return { appError: new AppError(error.errorCode, message, { ...component, ...reason, ...error.details, correlation_id: correlationId }) };
  }
  return { appError: new AppError("internal_error", "internal server error", { correlation_id: correlationId }), unexpected: error };
}
