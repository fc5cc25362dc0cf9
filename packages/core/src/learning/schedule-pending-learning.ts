import { learning, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Schedules the learning of every user whose interactions some cursor has not covered: publishes
 * whose signal never reached the orchestrator (it was down, or the process that answered them
 * stopped first) are not left behind. Every worker and every full-mode API process does this at
 * start-up; waking a learning run that is going anyway costs only the wake. Returns how many users
 * it scheduled.
 */
export async function schedulePendingLearning(deps: Pick<CoreDeps, "db">, schedule: (scope: Scope, userId: string) => Promise<void> | void): Promise<number> {
  const users = await learning.findUsersWithPendingLearning(deps.db);
  for (const { userId, ...scope } of users) await schedule(scope, userId);
  return users.length;
}
