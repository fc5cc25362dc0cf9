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
 * The request's keys are untrusted: a shape is read by own keys only (`constructor` is not a field
 * because Object.prototype has one) and the copy is built with defined properties, so a `__proto__`
 * key stays a key for the schema to refuse or strip instead of becoming the copy's prototype.
 */
export function omitNullOptionals(schema: z.ZodType, value: unknown): unknown {
  if (value === null && acceptsOmission(schema)) return undefined;
  if (value === null || typeof value !== "object") return value;
  const def = defOf(structural(schema));
  if (def.type === "array" && Array.isArray(value)) return value.map((item) => omitNullOptionals(def.element!, item));
  if (def.type !== "object" || Array.isArray(value)) return value;
  const shape = def.shape!;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, item]): [string, unknown][] => {
      if (!Object.hasOwn(shape, key)) return [[key, item]];
      const field = shape[key]!;
      return item === null && acceptsOmission(field) ? [] : [[key, omitNullOptionals(field, item)]];
    }),
  );
}
