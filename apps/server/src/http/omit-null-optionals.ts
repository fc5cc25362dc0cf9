import type { z } from "zod";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema that gives a value its structure, through wrappers (optional, default, preprocess, transform). */
function structural(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (def.innerType && ["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"].includes(def.type)) return structural(def.innerType);
  // A preprocess pipes a transform into the schema; `.transform()` pipes the schema into a transform.
  if (def.type === "pipe") return structural(defOf(def.in!).type === "transform" ? def.out! : def.in!);
  return schema;
}

const acceptsOmission = (field: z.ZodType) => field.safeParse(undefined).success && !field.safeParse(null).success;

/**
 * The value with every `null` removed where the schema has an optional field that does not accept
 * null: such clients (the published Python ones among them) send `null` for whatever they were not
 * given. A field that accepts null keeps it, since null means something there (inherit, unlimited).
 */
export function omitNullOptionals(schema: z.ZodType, value: unknown): unknown {
  if (value === null && acceptsOmission(schema)) return undefined;
  if (value === null || typeof value !== "object") return value;
  const def = defOf(structural(schema));
  if (def.type === "array" && Array.isArray(value)) return value.map((item) => omitNullOptionals(def.element!, item));
  if (def.type !== "object" || Array.isArray(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const field = def.shape![key];
    if (!field) result[key] = item;
    else if (!(item === null && acceptsOmission(field))) result[key] = omitNullOptionals(field, item);
  }
  return result;
}
