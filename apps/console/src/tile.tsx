/** A headline number of a page, with the window before it when there is one to compare. */
export function Tile({ label, value, baseline }: { label: string; value: string; baseline?: string }) {
  return (
    <li className="tile">
      <span className="muted">{label}</span>
      <strong>{value}</strong>
      {baseline !== undefined && <span className="muted">before: {baseline}</span>}
    </li>
  );
}
