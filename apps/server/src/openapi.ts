import { z } from "zod";
import type { Operation } from "./operation.ts";

const ERROR_RESPONSES = {
  "422": { description: "Invalid request: `detail` lists each problem with the field path (list indexes included)" },
  "503": { description: "Storage or the embedding model is unavailable" },
};

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
}

/** OpenAPI 3.1 of every operation, generated from the same zod schemas that validate requests. */
export function buildOpenApi(operations: Operation[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const input = jsonSchema(operation.input, "input") as { properties?: Record<string, unknown>; required?: string[] };
    // Elysia's `:name` path parameters are OpenAPI's `{name}`.
    const pathParams = [...operation.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
    const request =
      operation.method === "GET"
        ? {
            parameters: Object.entries(input.properties ?? {}).map(([name, schema]) => ({
              name,
              in: pathParams.includes(name) ? "path" : "query",
              required: pathParams.includes(name) || (input.required?.includes(name) ?? false),
              schema,
            })),
          }
        : { requestBody: { required: true, content: { "application/json": { schema: input } } } };
    const success = String(operation.successStatus ?? 200);
    (paths[operation.path.replace(/:(\w+)/g, "{$1}")] ??= {})[operation.method.toLowerCase()] = {
      operationId: operation.procedure,
      summary: operation.summary,
      tags: [operation.procedure.split(".")[0]],
      ...request,
      responses: {
        [success]: { description: success === "202" ? "Accepted" : "OK", content: { "application/json": { schema: jsonSchema(operation.output, "output") } } },
        ...ERROR_RESPONSES,
      },
    };
  }
  return { openapi: "3.1.0", info, paths };
}

export const DOCS_PAGE = `<!doctype html>
<html><head><title>Agent learning service API</title><meta charset="utf-8"/></head>
<body><script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script></body></html>`;
