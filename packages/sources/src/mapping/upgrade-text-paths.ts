import type { MappingDefinition } from "@als/contract";

/**
 * Rule 10: an input or output pointer into one indexed block of a content array (`.../content/0`,
 * `.../content/0/text`) is rewritten to the containing array with first_text_block, so the first
 * usable text block is read whichever index holds it. Fields with a transform already, and every
 * other field, are kept. Null when nothing changes (the upgrade is then a no-op).
 */
export function upgradeTextPaths(definition: MappingDefinition): MappingDefinition | null {
  let changed = false;
  const rules = definition.rules.map((rule) => {
    const fields = { ...rule.fields };
    for (const field of ["input", "output"] as const) {
      const spec = fields[field];
      if (!spec || spec.transform) continue;
      const container = containingArray(spec.path);
      if (container === null) continue;
      fields[field] = { ...spec, path: container, transform: "first_text_block" };
      changed = true;
    }
    return { ...rule, fields };
  });
  return changed ? { ...definition, rules } : null;
}

/** `/a/content/0/text` or `/a/content/0` → `/a/content`; null for a pointer that is not into an indexed block. */
function containingArray(pointer: string): string | null {
  const match = /^(.*)\/(0|[1-9]\d*)(\/text)?$/.exec(pointer);
  if (!match || match[1] === "") return null;
  const parent = match[1]!;
  // A message list indexed (`/messages/0`) is not a content array: only a `content` array or a
  // `text` pointer into a block is one.
  return parent.endsWith("/content") || match[3] !== undefined ? parent : null;
}
