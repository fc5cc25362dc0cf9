import type { Client } from "@als/client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { Chart } from "../chart.tsx";
import { dayWindow, type WindowDays, WindowSelect } from "../day-window.tsx";
import { ErrorNote } from "../error-note.tsx";
import { formatRate, formatTime } from "../format.ts";
import { useMember } from "../session.tsx";
import { Tile } from "../tile.tsx";

// Colours with at least 4.5:1 contrast on white, told apart by dash pattern too. Charts do not
// animate: numbers appear as they are, for people who prefer reduced motion and for screenshots.
const REGULAR = "#1d4ed8";
const SHADOW = "#b45309";

/** The evaluation of the project over a window: hero trend, headline tiles, score distribution, shadow win rate, experiments. */
export function EvaluationPage() {
  const { client, session } = useMember();
  const [days, setDays] = useState<WindowDays>(30);
  const overview = useQuery({
    queryKey: ["overview", session.projectId, days],
    queryFn: () => {
      const { start, end } = dayWindow(days);
      return client.evaluation.overview({ from_ts: start, to_ts: end, bucket: "day", include_shadow: true });
    },
  });
  const data = overview.data;
  const day = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 10);
  return (
    <section aria-labelledby="evaluation-title">
      <h1 id="evaluation-title">Evaluation</h1>
      <WindowSelect days={days} onChange={setDays} />
      <ErrorNote error={overview.error} />
      {overview.isPending && <p>Loading…</p>}
      {data && (
        <>
          <ul className="tiles" aria-label="Headline measures">
            <Tile label="Graded sessions" value={String(data.context_tiles.sessions.current)} baseline={String(data.context_tiles.sessions.baseline)} />
            <Tile
              label="Success rate"
              value={formatRate(data.context_tiles.success_rate.current)}
              baseline={formatRate(data.context_tiles.success_rate.baseline)}
            />
            <Tile
              label="Corrections per session"
              value={data.context_tiles.avg_corrections.current?.toFixed(2) ?? "—"}
              baseline={data.context_tiles.avg_corrections.baseline?.toFixed(2) ?? "—"}
            />
            <Tile
              label="Escalation rate"
              value={formatRate(data.context_tiles.escalation_rate.current)}
              baseline={formatRate(data.context_tiles.escalation_rate.baseline)}
            />
          </ul>

          <Chart title="Success rate by day (regular answers and shadow answers)" note={heroNote(data.hero.state)}>
            <LineChart data={data.hero.buckets.map((bucket) => ({ day: day(bucket.ts), regular: bucket.regular_rate, shadow: bucket.shadow_rate }))}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" />
              <YAxis domain={[0, 1]} tickFormatter={(value: number) => `${value * 100}%`} />
              <Tooltip formatter={(value) => formatRate(value as number)} />
              <Legend />
              <Line isAnimationActive={false} type="linear" dataKey="regular" name="Regular" stroke={REGULAR} strokeWidth={2} connectNulls />
              <Line isAnimationActive={false} type="linear" dataKey="shadow" name="Shadow" stroke={SHADOW} strokeWidth={2} strokeDasharray="6 3" connectNulls />
            </LineChart>
          </Chart>

          <Chart title="Success score distribution (this window and the one before)">
            <BarChart
              data={data.score_distribution.labels.map((label, index) => ({
                label,
                current: data.score_distribution.current_bins[index],
                baseline: data.score_distribution.baseline_bins[index],
              }))}
            >
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="label" />
              <YAxis allowDecimals={false} />
              <Tooltip />
              <Legend />
              <Bar isAnimationActive={false} dataKey="current" name="This window" fill={REGULAR} />
              <Bar isAnimationActive={false} dataKey="baseline" name="Previous window" fill={SHADOW} />
            </BarChart>
          </Chart>

          <Chart
            title="Shadow win rate by day (the answer with learnings judged better)"
            note={`Window: ${data.shadow_win_rate_trend.window_total.n} judged turns, win rate ${formatRate(data.shadow_win_rate_trend.window_total.win_rate)}, judge ${data.shadow_win_rate_trend.judge_prompt_version}.`}
          >
            <LineChart data={data.shadow_win_rate_trend.daily.map((point) => ({ day: point.date, win_rate: point.n > 0 ? point.wins / point.n : null }))}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" />
              <YAxis domain={[0, 1]} tickFormatter={(value: number) => `${value * 100}%`} />
              <Tooltip formatter={(value) => formatRate(value as number)} />
              <Line isAnimationActive={false} type="linear" dataKey="win_rate" name="Win rate" stroke={REGULAR} strokeWidth={2} />
            </LineChart>
          </Chart>
          <RuleAttribution rows={data.rule_attribution} />
        </>
      )}
      <Experiments />
    </section>
  );
}

function heroNote(state: "full" | "early" | "shadow_off" | "empty"): string {
  return {
    full: "",
    early: "Early: fewer than 20 graded sessions, read the trend with care.",
    shadow_off: "No shadow verdicts: only regular answers are shown.",
    empty: "Nothing was graded in this window.",
  }[state];
}

type AttributionRow = Awaited<ReturnType<Client["evaluation"]["overview"]>>["rule_attribution"][number];

/** The learnings given to graded sessions of the window and how those sessions ended, most sessions first. */
function RuleAttribution({ rows }: { rows: AttributionRow[] }) {
  return (
    <section className="card" aria-labelledby="attribution-title">
      <h2 id="attribution-title">Learnings in graded sessions</h2>
      {rows.length === 0 ? (
        <p className="muted">No graded session of the window was given a learning.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Learning</th>
              <th scope="col">Sessions</th>
              <th scope="col">Cited in</th>
              <th scope="col">Net (successes − failures)</th>
              <th scope="col">Success rate</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.kind}:${row.learning_id}`}>
                <th scope="row">
                  {row.kind.replace("_", " ")} {row.learning_id}
                </th>
                <td>{row.sessions}</td>
                <td>{row.cited_sessions}</td>
                <td>{row.net_sessions}</td>
                <td>{formatRate(row.success_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The project's retrieval experiments and the results of the one chosen. */
function Experiments() {
  const { client, session } = useMember();
  const list = useQuery({ queryKey: ["experiments", session.projectId], queryFn: () => client.experiments.list() });
  const [chosen, setChosen] = useState<string | null>(null);
  const selected = chosen ?? list.data?.active_experiment?.experiment_id ?? list.data?.experiments[0]?.experiment_id ?? null;
  const results = useQuery({
    queryKey: ["experiment-results", session.projectId, selected],
    enabled: selected !== null,
    queryFn: () => client.experiments.results({ experiment_id: selected! }),
  });
  return (
    <section aria-labelledby="experiments-title" className="card">
      <h2 id="experiments-title">Retrieval experiments</h2>
      <ErrorNote error={list.error ?? results.error} />
      {list.data && list.data.experiments.length === 0 && <p className="muted">No experiment has run in this project.</p>}
      {list.data && list.data.experiments.length > 0 && (
        <label className="inline">
          Experiment
          <select value={selected ?? ""} onChange={(event) => setChosen(event.target.value)}>
            {list.data.experiments.map((experiment) => (
              <option key={experiment.experiment_id} value={experiment.experiment_id}>
                {experiment.experiment_id} ({experiment.ended_at ? `ended ${formatTime(experiment.ended_at)}` : "running"})
              </option>
            ))}
          </select>
        </label>
      )}
      {results.data && (
        <table>
          <caption>
            Verdict: {results.data.verdict.replaceAll("_", " ")}
            {results.data.success_rate_lift_percentage_points !== null && `, lift ${results.data.success_rate_lift_percentage_points.toFixed(1)} points`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Arm</th>
              <th scope="col">Users</th>
              <th scope="col">Sessions</th>
              <th scope="col">Evaluated</th>
              <th scope="col">Success rate</th>
            </tr>
          </thead>
          <tbody>
            {[results.data.treatment, results.data.holdout].map((arm) => (
              <tr key={arm.arm}>
                <th scope="row">{arm.arm}</th>
                <td>{arm.assigned_user_count}</td>
                <td>{arm.published_session_count}</td>
                <td>{arm.evaluated_session_count}</td>
                <td>{formatRate(arm.success_rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
