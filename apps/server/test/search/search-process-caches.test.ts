import { afterAll, beforeAll, expect, test } from "bun:test";
import { createProcessServices, type ProcessServices } from "@als/core";
import type { Database } from "@als/db";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// Each search runs on a view of the database made for it (its deadline, its statement turns); the
// process's caches (its ProcessServices) must still serve every search, or each reads them again
// (found by the Server-Timing stages: `config` and `receipts` each cost a round trip, and the
// receipt secret a write).
let svc: TestService;
let services: ProcessServices;
const statements: string[] = [];

beforeAll(async () => {
  svc = await startTestService();
  await addUserPlaybooks(svc, [{ user_id: "ana", content: "Offer a refund when the order arrived broken" }]);
  const db = svc.deps.db;
  const counting: Database = {
    kind: db.kind,
    query: (text, params) => {
      statements.push(text);
      return db.query(text, params);
    },
    exec: (script) => db.exec(script),
    transaction: (work, options) => db.transaction(work, options),
    close: () => db.close(),
  };
  // The process runs on the counting database: its services are built over it, as a composition root builds them.
  services = svc.deps.services;
  svc.deps.db = counting;
  svc.deps.services = createProcessServices(counting, sharedProcessActivity());
});
afterAll(async () => {
  svc.deps.db = svc.db;
  svc.deps.services = services;
  await svc.close();
});

test("searches read the project configuration and the exposure receipt secret once per process, not once per search", async () => {
  for (const query of ["refund for a broken order", "the parcel came damaged", "money back please"]) {
    const answer = await svc.call("POST", "/api/search", { query, user_id: "ana" });
    expect(answer.status).toBe(200);
    expect(answer.body.user_playbooks.length).toBeGreaterThan(0);
  }
  expect(statements.filter((text) => text.includes("FROM project_config")).length).toBe(1);
  expect(statements.filter((text) => text.includes("INTO service_secrets")).length).toBe(1);
});
