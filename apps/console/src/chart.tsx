import { ResponsiveContainer } from "recharts";

/** A chart with a heading and a text note: the numbers a screen reader needs are in the tiles and notes. */
export function Chart({ title, note, children }: { title: string; note?: string; children: React.ReactElement }) {
  return (
    <figure className="chart">
      <figcaption>
        <h2>{title}</h2>
        {note && <p className="muted">{note}</p>}
      </figcaption>
      <div className="chart-area">
        <ResponsiveContainer width="100%" height={240}>
          {children}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
