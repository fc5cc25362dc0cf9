import type { Stage } from "@als/core";

/** Milliseconds to two decimals: enough for sub-millisecond stages, short enough for a header. */
const rounded = (ms: number) => Math.round(ms * 100) / 100;

/**
 * A request's stages as a W3C Server-Timing header value (`embed;dur=3.12;desc="miss", profiles;dur=4.2`).
 * Stage names are tokens and descriptions plain words, both chosen by the code, so nothing needs quoting rules.
 */
export function serverTimingHeader(stages: Stage[]): string {
  return stages.map(({ name, ms, desc }) => `${name};dur=${rounded(ms)}${desc === undefined ? "" : `;desc="${desc}"`}`).join(", ");
}

/** The same stages as log fields: `timings` (stage → milliseconds) and `timingPaths` (stage → description, where one was given). */
export function timingFields(stages: Stage[]): { timings: Record<string, number>; timingPaths?: Record<string, string> } {
  const described = stages.filter((stage) => stage.desc !== undefined);
  return {
    timings: Object.fromEntries(stages.map(({ name, ms }) => [name, rounded(ms)])),
    ...(described.length > 0 && { timingPaths: Object.fromEntries(described.map(({ name, desc }) => [name, desc!])) }),
  };
}

/** A Server-Timing value read back (the bench and the tests): stage name → duration and description, as this server writes them. */
export function parseServerTiming(header: string): Map<string, { dur: number; desc?: string }> {
  const stages = new Map<string, { dur: number; desc?: string }>();
  for (const metric of header.split(",")) {
    const [name, ...params] = metric.trim().split(";");
    if (!name) continue;
    const fields = new Map(params.map((param) => param.split("=", 2) as [string, string]));
    const desc = fields.get("desc")?.replace(/^"|"$/g, "");
    stages.set(name, { dur: Number(fields.get("dur")), ...(desc !== undefined && { desc }) });
  }
  return stages;
}
