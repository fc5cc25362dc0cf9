/**
 * The value a JSON pointer (RFC 6901) addresses in `root`; undefined when it addresses nothing.
 * Array tokens are decimal indexes without leading zeros; `-` and anything else address nothing.
 */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let current = root;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (current !== null && typeof current === "object" && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}
