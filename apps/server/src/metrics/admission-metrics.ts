import { publishAdmissionState, searchAdmissionState } from "@als/core";
import type { Database } from "@als/db";
import { Gauge, type Registry } from "prom-client";

/**
 * Registers the admission gauges of the process whose database is `db`: slots, slots taken and work
 * waiting for one, for publishes and for searches, read from the admissions when scraped (0 before
 * the first publish or search made them).
 */
export function registerAdmissionMetrics(registry: Registry, db: Database): void {
  const admissions = { publish: () => publishAdmissionState(db), search: () => searchAdmissionState(db) };
  for (const [field, help] of [
    ["concurrency", "Work admitted at once at most (the admission's slots)."],
    ["taken", "Slots taken by work under way."],
    ["waiting", "Work waiting for a slot."],
  ] as const) {
    new Gauge({
      name: `als_admission_${field === "concurrency" ? "slots" : field}`,
      help: `${help} By path: publish, search.`,
      labelNames: ["path"] as const,
      registers: [registry],
      collect() {
        for (const [path, stateOf] of Object.entries(admissions)) this.set({ path }, stateOf()?.[field] ?? 0);
      },
    });
  }
}
