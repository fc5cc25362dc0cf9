import { z } from "zod";
import { LlmOutputError, LlmUnavailableError } from "./llm.ts";
import { TransientLlmError } from "./llm-http.ts";

/** The JSON Schema a provider is asked to answer in: what the schema accepts as input. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return jsonSchema;
}

/** Validates a reply; a mismatch is transient, since the model may well answer right next time. */
export function validated<S extends z.ZodType>(schema: S, reply: unknown): z.output<S> {
  const parsed = schema.safeParse(reply);
  if (!parsed.success) throw new TransientLlmError(`the reply did not match the schema (${parsed.error.issues.length} issue(s))`);
  return parsed.data;
}

/** A JSON text from the model, or a transient failure when it is not JSON. */
export function parseJsonReply(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TransientLlmError("the reply was not JSON");
  }
}

/** Retries that ran out on replies that never matched the schema are an output error, not an outage. */
export function asOutputError(error: unknown): unknown {
  if (error instanceof LlmUnavailableError && /did not match the schema|was not JSON/.test(error.message)) return new LlmOutputError(error.message);
  return error;
}
