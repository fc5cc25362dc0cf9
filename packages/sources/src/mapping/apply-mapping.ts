import type { MappingDefinition, MappingField, MappingRule } from "@als/contract";
import { unixSecondsOf } from "../providers/provider-json.ts";
import { resolvePointer } from "./json-pointer.ts";
import { applyTextTransform } from "./text-transforms.ts";

/** The interaction a ready record becomes. */
export interface MappedInteraction {
  user_id: string;
  session_id: string | null;
  input: string | null;
  output: string | null;
  agent_version: string | null;
  source: string | null;
  /** Unix seconds. */
  created_at: number | null;
  references: unknown;
}

/**
 * What a mapping makes of one record: `ready` (an interaction), `held` (a rule matched but a value
 * is missing or unusable: it waits, with the reasons), or `excluded` (no rule matches).
 */
export type MappedRecord =
  | { status: "ready"; rule: string; interaction: MappedInteraction }
  | { status: "held"; rules: string[]; reasons: string[] }
  | { status: "excluded" };

/**
 * The rules whose dialogue pointers (input, output) all address a value in the record: a rule
 * matches the records shaped as it expects. Validation refuses a sample where some record matches
 * more than one.
 */
export function matchingRules(definition: MappingDefinition, record: unknown): MappingRule[] {
  return definition.rules.filter((rule) =>
    (["input", "output"] as const).every((field) => {
      const spec = rule.fields[field];
      if (!spec) return true;
      const value = resolvePointer(record, spec.path);
      return value !== undefined && value !== null;
    }),
  );
}

/** Maps one record. Pure and total: any JSON in, a MappedRecord out. */
export function mapRecord(definition: MappingDefinition, record: unknown): MappedRecord {
  const rules = matchingRules(definition, record);
  if (rules.length === 0) return { status: "excluded" };
  if (rules.length > 1) return { status: "held", rules: rules.map((rule) => rule.name), reasons: ["overlapping_rules"] };
  const rule = rules[0]!;
  const reasons: string[] = [];
  const read = (field: MappingField) => {
    const spec = rule.fields[field];
    return spec ? resolvePointer(record, spec.path) : undefined;
  };
  const text = (field: "input" | "output"): string | null => {
    const spec = rule.fields[field];
    if (!spec) return null;
    const value = read(field);
    if (!spec.transform) {
      if (typeof value === "string" && value.trim() !== "") return value;
      reasons.push(`${field}:not_text`);
      return null;
    }
    const outcome = applyTextTransform(spec.transform, value);
    if ("text" in outcome) return outcome.text;
    reasons.push(`${field}:${"held" in outcome ? outcome.held : `rejected: ${outcome.rejected}`}`);
    return null;
  };
  const input = text("input");
  const output = text("output");
  const userId = literal(read("user"));
  if (userId === null) reasons.push("user:missing");
  const createdAt = rule.fields.timestamp ? unixSeconds(read("timestamp")) : null;
  if (rule.fields.timestamp && createdAt === null) reasons.push("timestamp:unreadable");
  if (rule.fields.completion && !isComplete(read("completion"))) reasons.push("completion:incomplete");
  if (reasons.length > 0) return { status: "held", rules: [rule.name], reasons };
  return {
    status: "ready",
    rule: rule.name,
    interaction: {
      user_id: userId!,
      session_id: literal(read("session")),
      input,
      output,
      agent_version: literal(read("version")),
      source: literal(read("source")),
      created_at: createdAt,
      references: read("references") ?? null,
    },
  };
}

/** Identifiers by their string form: a string, a number, a boolean; nothing else. */
function literal(value: unknown): string | null {
  if (typeof value === "string") return value.trim() === "" ? null : value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return String(value);
  return null;
}

/** Unix seconds from seconds, milliseconds (past year 33658 as seconds) or an ISO timestamp. */
function unixSeconds(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return Math.floor(value > 1e12 ? value / 1000 : value);
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const seconds = unixSecondsOf(value);
    return Number.isNaN(seconds) ? null : seconds;
  }
  return null;
}

const isComplete = (value: unknown) => value === true || value === "true" || value === "complete" || value === "completed" || value === "success";
