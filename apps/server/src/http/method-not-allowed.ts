import type { Endpoint } from "@als/contract";

/**
 * For a path some endpoint serves with other methods, the `Allow` header value; undefined for a
 * path nobody serves (404). A path matched by several declarations takes the methods of the most
 * specific ones (fewest parameters), as the router and OpenAPI do: `/api/retrieval_experiments/stop`
 * is the stop endpoint's path (POST), not an experiment id that `GET .../:experiment_id` would read.
 */
export function allowedMethodsIndex(endpoints: Endpoint[]): (pathname: string) => string | undefined {
  const byPath = new Map<string, { pattern: RegExp; params: number; methods: Set<string> }>();
  for (const { path, method } of endpoints) {
    const entry = byPath.get(path) ?? {
      pattern: new RegExp(`^${path.replace(/:\w+/g, "[^/]+")}/?$`),
      params: path.match(/:\w+/g)?.length ?? 0,
      methods: new Set<string>(),
    };
    entry.methods.add(method);
    byPath.set(path, entry);
  }
  return (pathname) => {
    const matching = [...byPath.values()].filter(({ pattern }) => pattern.test(pathname));
    if (matching.length === 0) return undefined;
    const fewest = Math.min(...matching.map(({ params }) => params));
    const methods = matching.filter(({ params }) => params === fewest).flatMap(({ methods }) => [...methods]);
    return [...new Set(methods)].sort().join(", ");
  };
}
