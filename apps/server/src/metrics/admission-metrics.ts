import type { ProcessServices } from "@als/core";
import { Gauge, type Registry } from "prom-client";

/**
 * Registers the admission gauges of a process: slots, slots taken and work waiting for one, for
 * publishes and for searches, read from the process's admission slots when scraped.
 */
export function registerAdmissionMetrics(registry: Registry, services: Pick<ProcessServices, "publishSlots" | "searchSlots">): void {
  const admissions = {
    publish: () => ({ slots: services.publishSlots.capacity, taken: services.publishSlots.taken, waiting: services.publishSlots.waiting }),
    search: () => ({ slots: services.searchSlots.concurrency, taken: services.searchSlots.taken, waiting: services.searchSlots.waiting }),
  };
  for (const [field, help] of [
    ["slots", "Work admitted at once at most (the admission's slots)."],
    ["taken", "Slots taken by work under way."],
    ["waiting", "Work waiting for a slot."],
  ] as const) {
    new Gauge({
      name: `als_admission_${field}`,
      help: `${help} By path: publish, search.`,
      labelNames: ["path"] as const,
      registers: [registry],
      collect() {
        for (const [path, stateOf] of Object.entries(admissions)) this.set({ path }, stateOf()[field]);
      },
    });
  }
}
