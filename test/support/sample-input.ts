import type { Endpoint } from "@als/contract";
import { z } from "zod";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  minLength?: number;
  minItems?: number;
  default?: unknown;
  $ref?: string;
  format?: string;
  $defs?: Record<string, JsonSchema>;
  allOf?: JsonSchema[];
};

/**
 * A request for any declared endpoint, built from its input schema alone: every field named in
 * `known` (user_id, request_id, profile ids...) takes that value, every other required field the
 * smallest value its schema accepts. A new endpoint gets an input without anyone writing one.
 */
export function sampleInput(endpoint: Endpoint, known: Record<string, unknown>): Record<string, unknown> {
  const root = z.toJSONSchema(endpoint.input, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return smallest(root, known, root) as Record<string, unknown>;
}

/** An object schema with one of its `anyOf` alternatives (`content` or `trigger` required) applied. */
function withConstraints(field: JsonSchema, alternative: JsonSchema): JsonSchema {
  const properties = { ...field.properties };
  for (const [name, extra] of Object.entries(alternative.properties ?? {})) properties[name] = { ...properties[name], ...extra };
  return { ...field, anyOf: undefined, oneOf: undefined, properties, required: [...(field.required ?? []), ...(alternative.required ?? [])] };
}

/** A schema with its `$ref` (to the root's `$defs`) and `allOf` resolved. */
function resolved(field: JsonSchema, root: JsonSchema): JsonSchema {
  if (field.$ref) return resolved(root.$defs?.[field.$ref.replace("#/$defs/", "")] ?? {}, root);
  if (field.allOf) return Object.assign({}, ...field.allOf.map((each) => resolved(each, root)));
  return field;
}

/** A known value in the shape the field takes: a list field gets the value as its one element. */
function fitted(value: unknown, field: JsonSchema): unknown {
  const types = typesOf(field);
  if (types.includes("array") && !Array.isArray(value)) return [value];
  if (types.includes("string") && !types.includes("integer") && !types.includes("number") && typeof value === "number") return String(value);
  return value;
}

function typesOf(field: JsonSchema): string[] {
  if (field.anyOf ?? field.oneOf) return (field.anyOf ?? field.oneOf)!.flatMap(typesOf);
  return field.type === undefined ? [] : Array.isArray(field.type) ? field.type : [field.type];
}

function smallest(schema: JsonSchema, known: Record<string, unknown>, root: JsonSchema): unknown {
  const field = resolved(schema, root);
  if (field.const !== undefined) return field.const;
  if (field.enum) return field.enum[0];
  const variant = (field.anyOf ?? field.oneOf)?.find((each) => each.type !== "null");
  if (variant && field.type !== undefined) return smallest(withConstraints(field, resolved(variant, root)), known, root);
  if (variant) return smallest(variant, known, root);
  switch (typesOf(field)[0]) {
    case "string":
      return field.format === "email" ? "someone@beta.example" : "x".repeat(Math.max(1, field.minLength ?? 1));
    case "integer":
    case "number":
      return Math.max(1, field.minimum ?? 1);
    case "boolean":
      return false;
    case "array":
      return Array.from({ length: field.minItems ?? 0 }, () => smallest(field.items ?? {}, known, root));
    case "object": {
      const object: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(field.properties ?? {})) {
        if (name in known) object[name] = fitted(known[name], resolved(property, root));
        else if (field.required?.includes(name)) object[name] = smallest(property, known, root);
      }
      return object;
    }
    default:
      return "x";
  }
}
