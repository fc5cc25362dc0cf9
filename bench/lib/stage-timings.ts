import { parseServerTiming } from "../../apps/server/src/http/server-timing.ts";
import { ms, percentile } from "./stats.ts";

/** The pseudo-stage of what the client waited for beyond the server's own `total`: HTTP, the socket, reading and parsing the body. */
export const OUTSIDE_SERVER = "client − total";

/** Per-stage durations of many requests, from their Server-Timing headers: stage → one sample per request that had it. */
export class StageSamples {
  readonly byStage = new Map<string, number[]>();

  /** Adds one answered request: its Server-Timing header and the latency the client measured. */
  add(header: string | null, clientMillis: number): void {
    if (header === null) return;
    const stages = parseServerTiming(header);
    for (const [name, { dur }] of stages) this.push(name, dur);
    const total = stages.get("total")?.dur;
    if (total !== undefined) this.push(OUTSIDE_SERVER, clientMillis - total);
  }

  private push(name: string, millis: number): void {
    const samples = this.byStage.get(name);
    if (samples) samples.push(millis);
    else this.byStage.set(name, [millis]);
  }
}

/** The order stages are listed in: as a unified search runs them, then any others, then what lies outside the server. */
const STAGE_ORDER = [
  "admission",
  "config",
  "reformulate",
  "dedup.read",
  "embed",
  "profiles",
  "user_playbooks",
  "agent_playbooks",
  "dedup.claim",
  "receipts",
  "evidence",
  "serialize",
  "total",
  OUTSIDE_SERVER,
];

/** Every stage name seen in any of `sets`, in STAGE_ORDER (others after the known ones, by name). */
export function stageNames(sets: readonly StageSamples[]): string[] {
  const seen = new Set(sets.flatMap((set) => [...set.byStage.keys()]));
  // A part of a known stage (`profiles.vector`) follows it; an unknown stage comes before serialisation.
  const rank = (name: string) => {
    const at = STAGE_ORDER.indexOf(name);
    if (at !== -1) return at;
    const parent = STAGE_ORDER.indexOf(name.split(".")[0]!);
    return parent === -1 ? STAGE_ORDER.indexOf("serialize") - 0.5 : parent + 0.5;
  };
  return [...seen].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** "p50 / p95" of one stage, with how many requests ran it when not all did. */
export function stageCell(set: StageSamples | undefined, stage: string, requests: number): string {
  const samples = set?.byStage.get(stage);
  if (!samples?.length) return "–";
  const cell = `${ms(percentile(samples, 50), 2)} / ${ms(percentile(samples, 95), 2)}`;
  return samples.length < requests ? `${cell} (n=${samples.length})` : cell;
}
