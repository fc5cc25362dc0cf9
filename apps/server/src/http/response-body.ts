import type { Endpoint } from "@als/contract";

/**
 * The body sent for a success: the handler's result parsed through the endpoint's output schema,
 * so nothing the declaration does not name leaves the service. `strict` (tests) also fails on a
 * key the schema would have stripped, so a handler and its declaration cannot drift apart.
 */
export function toResponseBody(endpoint: Endpoint, output: unknown, strict: boolean): unknown {
  const parsed = endpoint.output.safeParse(output);
  if (!parsed.success) throw new Error(`the response of ${endpoint.procedure} does not match its declaration: ${parsed.error.message}`);
  if (strict) {
    const stripped = strippedKeys(output, parsed.data, "");
    if (stripped.length > 0) throw new Error(`the response of ${endpoint.procedure} has undeclared fields: ${stripped.join(", ")}`);
  }
  return parsed.data;
}

function strippedKeys(sent: unknown, kept: unknown, path: string): string[] {
  if (Array.isArray(sent) && Array.isArray(kept)) return sent.flatMap((item, index) => strippedKeys(item, kept[index], `${path}[${index}]`));
  if (!isRecord(sent) || !isRecord(kept)) return [];
  return Object.entries(sent).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key;
    if (value === undefined) return [];
    return Object.hasOwn(kept, key) ? strippedKeys(value, kept[key], at) : [at];
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
