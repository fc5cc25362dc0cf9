import type { ContextTile, GetEvaluationOverviewRequest, GetEvaluationOverviewResponse, HeroBucket, ScoreDistribution } from "@als/contract";
import { evaluationOverview, type Scope } from "@als/db";
import type { z } from "zod";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";

type Overview = z.input<typeof GetEvaluationOverviewResponse>;
type Bucket = z.input<typeof HeroBucket>;

/** Fewer graded sessions than this in the window: the hero says "early". */
const EARLY_SESSIONS = 20;
const SCORE_BINS = 5;
const ATTRIBUTION_ROWS = 50;
const SCORE_LABELS = Array.from({ length: SCORE_BINS }, (_, i) => `${(i / SCORE_BINS).toFixed(1)}–${((i + 1) / SCORE_BINS).toFixed(1)}`);

/**
 * The evaluation overview of [from_ts, to_ts) beside the equally long window before it: the hero
 * trend (graded sessions' success rate per bucket, and the shadow answers' rate), the headline tiles,
 * the score distribution, which learnings the sessions were given and how they ended, each
 * requested source set (a session belongs to the set of its first request's source), and the shadow
 * win-rate trend under the pinned judge prompt version. Every number is an aggregate computed in SQL.
 */
export async function evaluationOverviewOf(deps: CoreDeps, scope: Scope, input: GetEvaluationOverviewRequest): Promise<Overview> {
  const window = { from: input.from_ts, to: input.to_ts, baselineFrom: Math.max(0, input.from_ts - (input.to_ts - input.from_ts)) };
  const version = (await getProjectConfig(deps, scope)).shadow_comparison_judge_prompt_version;
  const shadowByBucket = input.include_shadow
    ? await evaluationOverview.shadowBuckets(deps.db, scope, { from: window.from, to: window.to, version }, input.bucket)
    : [];
  const cohort = async (source: string | undefined) => {
    const scoped = { ...window, source };
    const [buckets, tiles, bins] = await Promise.all([
      evaluationOverview.successBuckets(deps.db, scope, scoped, input.bucket),
      evaluationOverview.tiles(deps.db, scope, scoped),
      evaluationOverview.scoreBins(deps.db, scope, scoped, SCORE_BINS),
    ]);
    return { buckets, tiles, bins };
  };
  const all = await cohort(undefined);
  const [attribution, bySource, daily] = await Promise.all([
    evaluationOverview.ruleAttribution(deps.db, scope, window, ATTRIBUTION_ROWS),
    evaluationOverview.sessionsBySource(deps.db, scope, window),
    evaluationOverview.shadowBuckets(deps.db, scope, { from: window.from, to: window.to, version }, "day"),
  ]);
  const sets = await Promise.all(
    input.source_sets.map(async (set) => {
      const metrics = await cohort(set.source);
      return {
        label: set.label,
        source: set.source,
        session_count: metrics.tiles.current.sessions,
        success_rate: metrics.tiles.current.success_rate,
        buckets: heroBuckets(metrics.buckets, []),
        context_tiles: contextTile(metrics.tiles),
        score_distribution: scoreDistribution(metrics.bins),
      };
    }),
  );
  const shadowTotals = totals(shadowByBucket);
  const regularRate = all.tiles.current.success_rate;
  const shadowRate = input.include_shadow && shadowTotals.n > 0 ? (shadowTotals.losses + shadowTotals.ties) / shadowTotals.n : null;
  const sessions = all.tiles.current.sessions;
  const windowTotal = totals(daily);
  return {
    from_ts: window.from,
    to_ts: window.to,
    baseline_from_ts: window.baselineFrom,
    hero: {
      state: sessions === 0 ? "empty" : sessions < EARLY_SESSIONS ? "early" : shadowRate === null ? "shadow_off" : "full",
      regular_success_rate: regularRate,
      shadow_success_rate: shadowRate,
      delta: regularRate !== null && shadowRate !== null ? regularRate - shadowRate : null,
      buckets: heroBuckets(all.buckets, shadowByBucket),
    },
    context_tiles: contextTile(all.tiles),
    score_distribution: scoreDistribution(all.bins),
    rule_attribution: attribution.map((row) => {
      const split = row.ref.indexOf(":");
      const failures = row.sessions - row.successes;
      return {
        kind: row.ref.slice(0, split) as "profile" | "user_playbook" | "agent_playbook",
        learning_id: row.ref.slice(split + 1),
        sessions: row.sessions,
        cited_sessions: row.cited_sessions,
        successes_with: row.successes,
        failures_with: failures,
        net_sessions: row.successes - failures,
        success_rate: row.successes / row.sessions,
      };
    }),
    source_set_comparison: {
      sets,
      available_sources: bySource.map((row) => row.source),
      unmatched_session_count: bySource.filter((row) => !input.source_sets.some((set) => set.source === row.source)).reduce((sum, row) => sum + row.n, 0),
      success_rate_difference:
        sets.length >= 2 && sets[0]!.success_rate !== null && sets[1]!.success_rate !== null ? sets[0]!.success_rate - sets[1]!.success_rate : null,
    },
    shadow_win_rate_trend: {
      daily: daily.map(({ day, n, wins, losses, ties }) => ({ date: day, n, wins, losses, ties })),
      window_total: {
        ...windowTotal,
        win_rate: windowTotal.n === 0 ? 0 : windowTotal.wins / windowTotal.n,
        net_win: windowTotal.n === 0 ? 0 : (windowTotal.wins - windowTotal.losses) / windowTotal.n,
      },
      judge_prompt_version: version,
    },
  };
}

/** The regular side's buckets joined with the shadow side's on their start. */
function heroBuckets(regular: evaluationOverview.SuccessBucketRow[], shadow: evaluationOverview.ShadowDayRow[]): Bucket[] {
  const byTs = new Map<number, Bucket>();
  const at = (ts: number) => {
    let bucket = byTs.get(ts);
    if (!bucket) {
      bucket = { ts, regular_rate: null, shadow_rate: null, regular_n: 0, shadow_n: 0, avg_corrections: 0, escalation_rate: 0 };
      byTs.set(ts, bucket);
    }
    return bucket;
  };
  for (const row of regular)
    Object.assign(at(row.ts), { regular_rate: row.rate, regular_n: row.n, avg_corrections: row.avg_corrections, escalation_rate: row.escalation_rate });
  for (const row of shadow) Object.assign(at(row.ts), { shadow_rate: (row.losses + row.ties) / row.n, shadow_n: row.n });
  return [...byTs.values()].sort((a, b) => a.ts - b.ts);
}

function contextTile(tiles: { current: evaluationOverview.TileRow; baseline: evaluationOverview.TileRow }): z.input<typeof ContextTile> {
  const tile = (pick: (row: evaluationOverview.TileRow) => number | null) => {
    const current = pick(tiles.current);
    const baseline = pick(tiles.baseline);
    return { current, baseline, delta: current !== null && baseline !== null ? current - baseline : null };
  };
  return {
    sessions: { current: tiles.current.sessions, baseline: tiles.baseline.sessions },
    success_rate: tile((row) => row.success_rate),
    avg_corrections: tile((row) => row.avg_corrections),
    avg_user_turns_to_resolution: tile((row) => row.avg_turns),
    escalation_rate: tile((row) => row.escalation_rate),
  };
}

function scoreDistribution(bins: { current: number[]; baseline: number[] }): z.input<typeof ScoreDistribution> {
  return { labels: SCORE_LABELS, current_bins: bins.current, baseline_bins: bins.baseline };
}

function totals(rows: { n: number; wins: number; losses: number; ties: number }[]) {
  return rows.reduce((sum, row) => ({ n: sum.n + row.n, wins: sum.wins + row.wins, losses: sum.losses + row.losses, ties: sum.ties + row.ties }), {
    n: 0,
    wins: 0,
    losses: 0,
    ties: 0,
  });
}
