/**
 * A lifecycle status as responses carry it (StatusOnWire: null for CURRENT, the others lowercase)
 * → its stored name, so a test can state statuses as the domain names them. Anything else on the
 * wire fails the test.
 */
export function statusName(wire: string | null): "CURRENT" | "PENDING" | "ARCHIVED" {
  if (wire === null) return "CURRENT";
  if (wire === "pending") return "PENDING";
  if (wire === "archived") return "ARCHIVED";
  throw new Error(`not a lifecycle status as responses carry it: ${JSON.stringify(wire)}`);
}
