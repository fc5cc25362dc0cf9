import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";
import { stepUntilDone } from "./step-until-done.ts";

export interface DataSourceSampleInput {
  orgId: string;
  projectId: string;
  sampleId: string;
}

const { sampleStep } = proxyActivities<Activities>({
  // One attempt reads a few pages and their spans from the provider, each read bounded (retries on
  // 429 included); a worker that stops heartbeating (every 5 s) is taken for dead after 15 s, and
  // the retry takes the sample over. The step records its own failures on the sample.
  startToCloseTimeout: "10 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 10 },
});

/** One data-source sample read from its provider; its workflow id is the sample id. */
export async function dataSourceSampleWorkflow(input: DataSourceSampleInput): Promise<void> {
  await stepUntilDone(() => sampleStep(input));
}
