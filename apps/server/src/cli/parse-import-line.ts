import { PUBLISH_FIELDS } from "@als/contract";

/** One line of an import file, read as the publish it contributes to. */
export interface ImportLine {
  /** 1-based, as an editor shows it. */
  line: number;
  /** The request's fields (user_id, session_id, source, agent_version, ...), without its interactions. */
  request: Record<string, unknown>;
  /** Lines whose request fields are equal may be published together: the fields in canonical JSON. */
  requestKey: string;
  interactions: unknown[];
}

export interface LineRefusal {
  line: number;
  message: string;
}

/**
 * The request fields a line may carry beside an interaction's own: publish_interaction's fields
 * except the interactions themselves, and wait_for_response (an import never waits for learning:
 * with it, each batch would hold its answer up to 240 s).
 */
const REQUEST_FIELDS: ReadonlySet<string> = new Set([...PUBLISH_FIELDS].filter((field) => field !== "interaction_data_list" && field !== "wait_for_response"));

/**
 * A line of the import format (docs/operations.md#import-and-export): either one session's request,
 * `{"user_id", "session_id", "interactions": [...], ...}` (the peer's `interactions publish --file`
 * payload; `interaction_data_list` is taken as well), or one interaction with its request fields
 * beside its own, `{"user_id", "session_id", "role", "content", ...}`. A blank line is null. Only
 * what the API cannot be asked is checked here (JSON, an object, a list); the rest is the API's to
 * refuse, and its message is the one reported.
 */
export function parseImportLine(text: string, line: number): ImportLine | LineRefusal | null {
  if (text.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { line, message: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { line, message: "a line must be one JSON object" };
  const fields = parsed as Record<string, unknown>;
  const listField = "interactions" in fields ? "interactions" : "interaction_data_list" in fields ? "interaction_data_list" : null;
  const request: Record<string, unknown> = {};
  let interactions: unknown[];
  if (listField !== null) {
    const list = fields[listField];
    if (!Array.isArray(list) || list.length === 0) return { line, message: `${listField} must be a list of at least one interaction` };
    for (const [name, value] of Object.entries(fields)) if (name !== listField && name !== "wait_for_response") request[name] = value;
    interactions = list;
  } else {
    const interaction: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(fields)) {
      if (REQUEST_FIELDS.has(name)) request[name] = value;
      else if (name !== "wait_for_response") interaction[name] = value;
    }
    interactions = [interaction];
  }
  return { line, request, requestKey: canonicalJson(request), interactions };
}

export const isRefusal = (parsed: ImportLine | LineRefusal): parsed is LineRefusal => "message" in parsed;

/** Key order does not make two requests different. */
function canonicalJson(fields: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(fields)
      .sort()
      .map((key) => [key, fields[key]]),
  );
}
