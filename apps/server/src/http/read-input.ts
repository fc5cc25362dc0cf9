import { AppError } from "@als/contract";

/** The JSON body of a request, or undefined when it has none. Malformed JSON is a 422. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw AppError.validation([{ loc: ["body"], msg: "body is not valid JSON", type: "json_invalid" }]);
  }
}

/** Query parameters as an object; a repeated key becomes a list. */
export function readQuery(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

/** The body with the operation's query-string fields added (`?wait_for_response=true`); the body wins. */
export function withQueryFields(operation: { queryFields?: string[] }, request: Request, body: unknown): unknown {
  if (!operation.queryFields || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const query = readQuery(new URL(request.url));
  const fromQuery = Object.fromEntries(operation.queryFields.flatMap((field) => (query[field] === undefined ? [] : [[field, query[field]]])));
  return { ...fromQuery, ...body };
}
