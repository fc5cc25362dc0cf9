import type { Endpoint } from "@als/contract";

/** Where and what to send for one call; `body` is JSON text, unset for a GET. */
export interface RequestParts {
  url: string;
  body?: string;
}

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The URL and body of a call, the way the server reads input: `:name` path segments come out of the
 * input, the rest of a GET's input is the query string (a list as repeated keys), the rest of any
 * other method's input is the JSON body. Fields an endpoint also accepts in the query string
 * (`queryFields`) go in the body, which the server reads first.
 */
export function buildRequest(baseUrl: string, endpoint: Endpoint, input: unknown): RequestParts {
  const fields: Record<string, unknown> = typeof input === "object" && input !== null ? { ...input } : {};
  const path = endpoint.path.replace(PATH_PARAM, (_, name: string) => {
    const value = fields[name];
    if (value === undefined || value === null || value === "") throw new TypeError(`${endpoint.procedure} needs ${name} for its path ${endpoint.path}`);
    delete fields[name];
    return encodeURIComponent(String(value));
  });
  // A prefix in baseUrl (`https://host/learning`) is kept, which `new URL(path, baseUrl)` would drop.
  const url = `${baseUrl.replace(/\/+$/, "")}${path}`;
  if (endpoint.method === "GET") return { url: url + toQueryString(fields) };
  // Always a body, `{}` at least: a call without input is valid only where `{}` is, and the server reads a missing body as none.
  return { url, body: JSON.stringify(fields) };
}

function toQueryString(fields: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) query.append(key, String(item));
    }
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}
