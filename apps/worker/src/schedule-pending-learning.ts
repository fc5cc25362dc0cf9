import type { CoreDeps } from "@als/core";
import { learning } from "@als/db";
import { signalLearnUser } from "@als/workflows/signal-learn-user";
import type { Client } from "@temporalio/client";

/**
 * Wakes (or starts) the learning run of every user whose interactions some cursor has not covered:
 * publishes whose signal never reached Temporal (it was down) are not left behind. Every worker
 * does this at start-up; signalling a running run only wakes it. Returns how many users it woke.
 */
export async function schedulePendingLearning(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const users = await learning.findUsersWithPendingLearning(deps.db);
  for (const { userId, ...scope } of users) await signalLearnUser(client, taskQueue, scope, userId);
  return users.length;
}
