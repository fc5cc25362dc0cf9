import type { Client } from "@als/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { BacklogState } from "../backlog.tsx";
import { Chart } from "../chart.tsx";
import { dayWindow, type WindowDays, WindowSelect } from "../day-window.tsx";
import { ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { pageLink } from "../route.ts";
import { useMember } from "../session.tsx";
import { Tile } from "../tile.tsx";

// One colour per stage, each with at least 3:1 contrast on white (graphics), in a fixed order so a
// stage keeps its colour from one window to the next. Charts do not animate.
const STAGE_COLOURS = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490", "#4d7c0f", "#a21caf", "#c2410c", "#334155"];

type CostRow = Awaited<ReturnType<Client["learning"]["costs"]>>["costs"][number];

/** Whether learning runs (a provider stall, held windows) and what the project's LLM calls cost per day and stage. */
export function StatusPage() {
  return (
    <section aria-labelledby="status-title">
      <h1 id="status-title">Status</h1>
      <LearningState />
      <BacklogState />
      <Costs />
    </section>
  );
}

/** A provider stall pauses every background extraction; held windows stop one user's extractor each. */
function LearningState() {
  const { client, session } = useMember();
  const queries = useQueryClient();
  // Read afresh each time the page opens, however recent the last read: this is what an operator checks.
  const stall = useQuery({ queryKey: ["stall", session.projectId], queryFn: () => client.learning.stallState(), refetchOnMount: "always" });
  const held = useQuery({
    queryKey: ["held-windows", session.projectId, ""],
    queryFn: () => client.learning.listHeldWindows({}),
    refetchOnMount: "always",
  });
  const [confirming, setConfirming] = useState(false);
  const notified = useMutation({
    mutationFn: () => client.learning.markStallNotified(),
    onSuccess: () => {
      setConfirming(false);
      return queries.invalidateQueries({ queryKey: ["stall"] });
    },
  });
  const windows = held.data?.held_windows ?? [];
  const waitingUsers = new Set(windows.map((each) => each.user_id)).size;
  return (
    <section className="card" aria-labelledby="learning-state-title">
      <h2 id="learning-state-title">Learning</h2>
      <ErrorNote error={stall.error ?? held.error ?? notified.error} />
      {stall.data && (
        <ul className="tiles" aria-label="Learning measures">
          <Tile label="Background extraction" value={stall.data.stalled ? "Paused" : "Running"} />
          <Tile label="Held windows" value={held.data ? String(windows.length) : "…"} />
          <Tile label="Users waiting on a held window" value={held.data ? String(waitingUsers) : "…"} />
        </ul>
      )}
      {stall.data?.stalled && (
        <div className="warning">
          <p>
            The LLM provider refused extraction ({stall.data.reason?.replace("_", " ")}) at {formatTime(stall.data.stalled_at)}: {stall.data.error_message}. Fix
            the provider's credentials or billing; the next publish with override_learning_stall that learns clears the stall, and the paused users' learning
            goes on.
          </p>
          {stall.data.notified_in_cc ? (
            <p className="muted">The operator was told.</p>
          ) : confirming ? (
            <div className="actions">
              <button type="button" className="primary" disabled={notified.isPending} onClick={() => notified.mutate()}>
                Confirm: record the operator as told
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <button type="button" onClick={() => setConfirming(true)}>
              Record the operator as told
            </button>
          )}
        </div>
      )}
      {windows.length > 0 && (
        <p>
          <a href={pageLink("conversations", {})}>Recover held windows on the conversations page</a>
        </p>
      )}
    </section>
  );
}

/** Tokens and cost of the project's LLM calls per UTC day and stage, over a window ending now. */
function Costs() {
  const { client, session } = useMember();
  const [days, setDays] = useState<WindowDays>(30);
  const costs = useQuery({
    queryKey: ["costs", session.projectId, days],
    queryFn: () => {
      const { start, end } = dayWindow(days);
      return client.learning.costs({ start_time: start, end_time: end });
    },
    refetchOnMount: "always",
  });
  const rows = costs.data?.costs ?? [];
  const stages = [...new Set(rows.map((row) => row.stage))].sort();
  const unpriced = rows.filter((row) => row.cost_usd === null).length;
  const sum = (field: "calls" | "input_tokens" | "output_tokens") => rows.reduce((total, row) => total + row[field], 0);
  return (
    <section aria-labelledby="costs-title">
      <h2 id="costs-title">LLM tokens and cost</h2>
      <WindowSelect days={days} onChange={setDays} />
      <ErrorNote error={costs.error} />
      {costs.isPending && <p>Loading…</p>}
      {costs.data && (
        <>
          <ul className="tiles" aria-label="Cost measures">
            <Tile label="LLM calls" value={String(sum("calls"))} />
            <Tile label="Input tokens" value={String(sum("input_tokens"))} />
            <Tile label="Output tokens" value={String(sum("output_tokens"))} />
            <Tile label="Known cost (USD)" value={costs.data.total_cost_usd.toFixed(4)} />
          </ul>
          {rows.length === 0 ? (
            <p className="muted">No LLM call in this window.</p>
          ) : (
            <>
              <Chart title="Tokens per day by stage (input and output)">
                <StageBars data={perDay(rows, stages, (row) => row.input_tokens + row.output_tokens)} stages={stages} />
              </Chart>
              <Chart
                title="Cost per day by stage (USD)"
                note={unpriced > 0 ? `${unpriced} day, stage and model rows have a model whose price is unknown: their cost is not counted.` : undefined}
              >
                <StageBars data={perDay(rows, stages, (row) => row.cost_usd ?? 0)} stages={stages} />
              </Chart>
              <CostTable rows={rows} />
            </>
          )}
        </>
      )}
    </section>
  );
}

/** One point per day (oldest first) with a value per stage, summed over models. */
function perDay(rows: CostRow[], stages: string[], value: (row: CostRow) => number): Record<string, number | string>[] {
  const days = new Map<string, Record<string, number | string>>();
  for (const row of rows) {
    const point = days.get(row.day) ?? { day: row.day, ...Object.fromEntries(stages.map((stage) => [stage, 0])) };
    point[row.stage] = (point[row.stage] as number) + value(row);
    days.set(row.day, point);
  }
  return [...days.values()].sort((a, b) => String(a.day).localeCompare(String(b.day)));
}

function StageBars({ data, stages }: { data: Record<string, number | string>[]; stages: string[] }) {
  return (
    <BarChart data={data}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="day" />
      <YAxis />
      <Tooltip />
      <Legend />
      {stages.map((stage, index) => (
        <Bar
          key={stage}
          isAnimationActive={false}
          stackId="stages"
          dataKey={stage}
          name={stage.replaceAll("_", " ")}
          fill={STAGE_COLOURS[index % STAGE_COLOURS.length]}
        />
      ))}
    </BarChart>
  );
}

/** The numbers of the charts, for reading and for screen readers. */
function CostTable({ rows }: { rows: CostRow[] }) {
  return (
    <details>
      <summary>Costs as a table</summary>
      <table>
        <caption className="muted">Per day, stage and model, newest day first</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Stage</th>
            <th scope="col">Model</th>
            <th scope="col">Calls</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Cost (USD)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.day}\u0000${row.stage}\u0000${row.model}`}>
              <td>{row.day}</td>
              <td>{row.stage.replaceAll("_", " ")}</td>
              <td>{row.model}</td>
              <td>{row.calls}</td>
              <td>{row.input_tokens}</td>
              <td>{row.output_tokens}</td>
              <td>{row.cost_usd === null ? "unknown" : row.cost_usd.toFixed(4)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
