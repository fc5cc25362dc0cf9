import { expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";

// A started experiment is the configuration's and its row's, committed together: a kill of every
// process right after the start loses neither, and the restarted service stops it.
test(`a started experiment survives a kill of every process (${testMode})`, async () => {
  const deployment = await startableDeployment("experiments-restart", {});
  try {
    await deployment.start();
    expect((await deployment.post("/api/retrieval_experiments", { experiment_id: "exp-restart", holdout_percentage: 10 })).status).toBe(200);
    await deployment.kill();
    await deployment.start();
    const listed = (await (await fetch(`${deployment.url}/api/retrieval_experiments`)).json()) as any;
    expect(listed.active_experiment).toMatchObject({ experiment_id: "exp-restart", holdout_percentage: 10, ended_at: null });
    const config = (await (await fetch(`${deployment.url}/api/get_config`)).json()) as any;
    expect(config.retrieval_experiment).toMatchObject({ experiment_id: "exp-restart", arm_split: 0.9 });
    const stopped = await deployment.post("/api/retrieval_experiments/stop", { experiment_id: "exp-restart" });
    expect(stopped.status).toBe(200);
    expect(stopped.body.active_experiment).toBeNull();
  } finally {
    await deployment.close();
  }
}, 120_000);
