import type { Endpoint } from "@als/contract";

/**
 * For a path some endpoint serves with other methods, the `Allow` header value; undefined for a
 * path nobody serves (404).
 */
export function allowedMethodsIndex(endpoints: Endpoint[]): (pathname: string) => string | undefined {
  const byPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const { path, method } of endpoints) {
    const entry = byPath.get(path) ?? { pattern: new RegExp(`^${path.replace(/:\w+/g, "[^/]+")}/?$`), methods: new Set<string>() };
    entry.methods.add(method);
    byPath.set(path, entry);
  }
  return (pathname) => {
    const methods = [...byPath.values()].filter(({ pattern }) => pattern.test(pathname)).flatMap(({ methods }) => [...methods]);
    return methods.length === 0 ? undefined : [...new Set(methods)].sort().join(", ");
  };
}
