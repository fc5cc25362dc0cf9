/**
 * The one error type of the service. Domain code throws `AppError(code, message, details)`;
 * ERROR_TABLE maps each code to its HTTP status and tRPC code, and `errorBody` builds the JSON body.
 */
export const ERROR_TABLE = {
  bad_request: { status: 400, trpc: "BAD_REQUEST" },
  unauthorized: { status: 401, trpc: "UNAUTHORIZED" },
  forbidden: { status: 403, trpc: "FORBIDDEN" },
  not_found: { status: 404, trpc: "NOT_FOUND" },
  conflict: { status: 409, trpc: "CONFLICT" },
  validation_error: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  internal_error: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  not_implemented: { status: 501, trpc: "NOT_IMPLEMENTED" },
  storage_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  embedding_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  llm_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  reranker_unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  capacity_deadline_exceeded: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
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
  return { error: error.code, detail: error.message, ...extra };
}
