import { readFileSync } from "node:fs";

/**
 * The mapping limit operators are asked to set (Elasticsearch and OpenSearch ask the same). The
 * kernel's default, 65,530, is reachable by a process whose in-process indexes hold 100k learnings
 * of each kind: the JavaScript runtime returns freed heap pages to the system one piece at a time,
 * each piece between live pages a mapping of its own, and once the limit is reached every
 * allocation that needs a mapping fails and the process stalls.
 */
export const RECOMMENDED_MAPPING_LIMIT = 262_144;

/** The mappings a process may hold (Linux's vm.max_map_count); undefined where the system does not say. */
export function memoryMappingLimit(): number | undefined {
  try {
    const limit = Number.parseInt(readFileSync("/proc/sys/vm/max_map_count", "utf8"), 10);
    return Number.isFinite(limit) ? limit : undefined;
  } catch {
    return undefined;
  }
}

/** The mappings this process holds now (the lines of /proc/self/maps); undefined where the system does not say. */
export function memoryMappings(): number | undefined {
  let maps: Buffer;
  try {
    maps = readFileSync("/proc/self/maps");
  } catch {
    return undefined;
  }
  let lines = 0;
  for (let at = maps.indexOf(10); at !== -1; at = maps.indexOf(10, at + 1)) lines++;
  return lines;
}
