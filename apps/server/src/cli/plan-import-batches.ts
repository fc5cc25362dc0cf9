import type { ImportLine } from "./parse-import-line.ts";

/**
 * The publishes of `lines`: the lines of each request (user, session, source, ...) in file order,
 * cut into batches of at most `maxInteractions` interactions unless one line alone holds more (a
 * line is never split: its interactions are one request of the session). A file interleaving many
 * sessions (a log in time order) still makes full batches; each session's turns keep their order.
 * Batches come in the order of their first line.
 */
export function planImportBatches(lines: readonly ImportLine[], maxInteractions: number): ImportLine[][] {
  const open = new Map<string, { lines: ImportLine[]; size: number }>();
  const batches: ImportLine[][] = [];
  for (const line of lines) {
    let batch = open.get(line.requestKey);
    if (batch !== undefined && batch.size + line.interactions.length > maxInteractions) {
      open.delete(line.requestKey);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { lines: [], size: 0 };
      open.set(line.requestKey, batch);
      batches.push(batch.lines);
    }
    batch.lines.push(line);
    batch.size += line.interactions.length;
  }
  return batches;
}

/** The publish_interaction body of a batch: the request fields of its lines and their interactions in order. */
export function publishBodyOf(batch: readonly ImportLine[]): Record<string, unknown> {
  return { ...batch[0]!.request, interaction_data_list: batch.flatMap((line) => line.interactions) };
}
