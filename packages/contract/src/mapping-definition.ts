import { z } from "zod";

/** The contract's mapping field keys and transforms (Mapping definition). */
export const MAPPING_FIELDS = ["user", "session", "input", "output", "version", "references", "source", "timestamp", "completion"] as const;
export type MappingField = (typeof MAPPING_FIELDS)[number];
export const MAPPING_TRANSFORMS = ["first_text_block", "text_blocks"] as const;
export type MappingTransform = (typeof MAPPING_TRANSFORMS)[number];
/** The fields a transform may apply to: the dialogue text. */
export const TEXT_FIELDS: readonly MappingField[] = ["input", "output"];

export const MAX_MAPPING_RULES = 20;
const MAX_POINTER_CHARS = 1024;

/** RFC 6901: empty (the whole record) or `/`-separated tokens where `~` is only `~0` or `~1`. */
const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

export const MappingFieldSpec = z
  .object({
    path: z.string().max(MAX_POINTER_CHARS).regex(JSON_POINTER, "must be a JSON pointer (RFC 6901): empty, or /-separated tokens with ~0 and ~1 escapes"),
    scope: z.literal("current").optional().describe("The span the pointer reads: the current one"),
    transform: z.enum(MAPPING_TRANSFORMS).optional(),
  })
  .strict();
export type MappingFieldSpec = z.output<typeof MappingFieldSpec>;

export const MappingRule = z
  .object({
    name: z.string().trim().min(1).max(128),
    fields: z
      .object(
        Object.fromEntries(MAPPING_FIELDS.map((field) => [field, MappingFieldSpec.optional()])) as Record<MappingField, z.ZodOptional<typeof MappingFieldSpec>>,
      )
      .strict(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (!rule.fields.input && !rule.fields.output) ctx.addIssue({ code: "custom", path: ["fields"], message: "a rule maps input or output (or both)" });
    for (const field of MAPPING_FIELDS) {
      if (rule.fields[field]?.transform && !TEXT_FIELDS.includes(field)) {
        ctx.addIssue({ code: "custom", path: ["fields", field, "transform"], message: `transforms apply to input and output, not ${field}` });
      }
    }
  });
export type MappingRule = z.output<typeof MappingRule>;

/** `{version: 1, rules: [{name, fields}]}`; rule names are unique. */
export const MappingDefinition = z
  .object({
    version: z.literal(1),
    rules: z.array(MappingRule).min(1).max(MAX_MAPPING_RULES),
  })
  .strict()
  .superRefine((definition, ctx) => {
    const seen = new Set<string>();
    definition.rules.forEach((rule, index) => {
      if (seen.has(rule.name)) ctx.addIssue({ code: "custom", path: ["rules", index, "name"], message: `rule name '${rule.name}' is used twice` });
      seen.add(rule.name);
    });
  });
export type MappingDefinition = z.output<typeof MappingDefinition>;
