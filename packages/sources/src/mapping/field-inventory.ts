/** Entries of an inventory: enough for any trace shape we know, small enough to send. */
export const MAX_INVENTORY_ENTRIES = 200;
const MAX_DEPTH = 6;

/**
 * The JSON pointers found in records and the JSON type at each (rule 7): names and types only,
 * never a value. Arrays are described by their first element (`/input/0/...`).
 */
export function fieldInventory(records: readonly unknown[]): Map<string, string> {
  const inventory = new Map<string, string>();
  const visit = (value: unknown, pointer: string, depth: number) => {
    if (inventory.size >= MAX_INVENTORY_ENTRIES) return;
    if (pointer !== "" && !inventory.has(pointer)) inventory.set(pointer, typeOf(value));
    if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      if (value.length > 0) visit(value[0], `${pointer}/0`, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth + 1);
  };
  for (const record of records) visit(record, "", 0);
  return inventory;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
