import type { LlmUsage } from "@als/ai";
import { type AggregationInput, agentPlaybooks, aggregation, learning, type OperationRecord, type Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { NoLlmProvider, settleFailure } from "../durable/failure-policy.ts";
import { LeaseLost, outcomeOfRun, type StepOutcome } from "../durable/step-outcome.ts";
import { embedPlaybooks } from "../playbooks/playbook-text.ts";
import { clusterPlaybooks, type PlaybookCluster } from "./cluster-playbooks.ts";
import { type AgentPlaybookDraft, summarizeCluster } from "./summarize-cluster.ts";

/** Longer than a run takes; a worker that died holding an operation frees it after this. */
export const AGGREGATION_LEASE_SECONDS = 600;
const APPROVED_SHOWN = 200;

/** What an aggregation step leaves for its orchestrator. */
export type AggregationStepOutcome = StepOutcome;

class InputsRetired extends Error {}

/**
 * One attempt at an aggregation operation: cluster the agent version's current user playbooks,
 * give each cluster whose members changed since the last successful run to the LLM, and commit the
 * new agent playbooks (PENDING, linked to their sources) together with the operation's success.
 * The commit is fenced by the operation's lease, and refused when a source it used was retired
 * meanwhile (the retry then works from the inputs still current). Failures leave a safe error code.
 */
export async function runAggregationStep(
  deps: CoreDeps,
  scope: Scope,
  operationId: string,
  leaseToken: string = crypto.randomUUID(),
): Promise<AggregationStepOutcome> {
  const now = deps.now();
  const operation = await aggregation.claimOperation(deps.db, operationId, leaseToken, now, AGGREGATION_LEASE_SECONDS);
  if (!operation) return outcomeOfRun(await aggregation.findOperation(deps.db, scope, operationId), now);
  try {
    const run = await prepareRun(deps, scope, operation);
    await deps.db.transaction(async (tx) => {
      if (!(await aggregation.completeOperation(tx, operationId, leaseToken, run.result, deps.now()))) throw new LeaseLost();
      if ((await aggregation.retiredInputs(tx, scope, run.captured)).length > 0) throw new InputsRetired();
      const drafted = run.changed.filter((c) => c.draft !== null);
      const created =
        drafted.length === 0
          ? []
          : await agentPlaybooks.insertAgentPlaybooks(
              tx,
              scope,
              drafted.map(({ cluster, draft }, index) =>
                toAgentPlaybook(operation, cluster, draft!, { values: run.embeddings[index]!, model: deps.embedder.modelId }),
              ),
              deps.now(),
            );
      const createdFor = new Map(drafted.map(({ cluster }, index) => [cluster.key, created[index]!.agent_playbook_id]));
      await aggregation.replaceClusters(
        tx,
        scope,
        operation.agent_version,
        run.clusters.map((cluster) => ({ clusterKey: cluster.key, agentPlaybookId: createdFor.get(cluster.key) ?? run.previous.get(cluster.key) ?? null })),
        deps.now(),
      );
      await learning.recordLlmUsage(
        tx,
        scope,
        run.usage.map((u) => ({ ...u, stage: "playbook_aggregation", userId: null, requestId: operation.request_id })),
        deps.now(),
      );
    });
    return { next: "done" };
  } catch (error) {
    if (error instanceof LeaseLost) return outcomeOfRun(await aggregation.findOperation(deps.db, scope, operationId), deps.now());
    if (error instanceof InputsRetired) {
      await aggregation.scheduleRetry(deps.db, operationId, leaseToken, { errorCode: "inputs_retired", retryAt: deps.now() }, deps.now());
      return { next: "retry", at: deps.now() };
    }
    return failOrRetry(deps, operation, leaseToken, error);
  }
}

interface PreparedRun {
  clusters: PlaybookCluster[];
  previous: Map<string, number | null>;
  changed: { cluster: PlaybookCluster; draft: AgentPlaybookDraft | null }[];
  /** Vectors of the drafted agent playbooks, in the order of `changed` filtered to drafts. */
  embeddings: number[][];
  /** The inputs the output was made from: they must still be current when it is saved. */
  captured: AggregationInput[];
  usage: LlmUsage[];
  result: Record<string, number>;
}

/** Everything outside the transaction: reading, clustering, the LLM calls and the embeddings. */
async function prepareRun(deps: CoreDeps, scope: Scope, operation: OperationRecord): Promise<PreparedRun> {
  const config = await getProjectConfig(deps, scope);
  const settings = config.user_playbook_extractor_config.aggregation_config;
  const inputs = await aggregation.aggregationInputs(deps.db, scope, operation.agent_version, deps.embedder.modelId);
  const similarity = settings.clustering_similarity ?? deps.embedder.calibration.clusteringSimilarity;
  const clusters = await clusterPlaybooks(deps, inputs, { similarity, minClusterSize: settings.min_cluster_size });
  const previous = await aggregation.previousClusters(deps.db, scope, operation.agent_version);
  const changedClusters = clusters.filter((cluster) => !previous.has(cluster.key));
  const usage: LlmUsage[] = [];
  const changed: PreparedRun["changed"] = [];
  if (changedClusters.length > 0) {
    if (!deps.llm) throw new NoLlmProvider();
    const approved = await agentPlaybooks.listAgentPlaybooks(
      deps.db,
      scope,
      { agentVersion: operation.agent_version, playbookStatuses: ["APPROVED"], statuses: ["CURRENT"] },
      APPROVED_SHOWN,
    );
    for (const cluster of changedClusters) {
      const summary = await summarizeCluster(deps.llm, cluster, approved, config.playbook_aggregator_config.extraction_definition_prompt);
      usage.push(summary.usage);
      changed.push({ cluster, draft: summary.draft });
    }
  }
  const drafts = changed.flatMap((c) => (c.draft ? [c.draft] : []));
  const embeddings = drafts.length > 0 ? await embedPlaybooks(deps, drafts) : [];
  return {
    clusters,
    previous,
    changed,
    embeddings,
    captured: changedClusters.flatMap((cluster) => cluster.members),
    usage,
    result: {
      user_playbooks_considered: inputs.length,
      clusters: clusters.length,
      clusters_changed: changedClusters.length,
      agent_playbooks_created: drafts.length,
    },
  };
}

/** Records a failed attempt: the operation fails for good, or waits for its retry. */
async function failOrRetry(deps: CoreDeps, operation: OperationRecord, leaseToken: string, error: unknown): Promise<AggregationStepOutcome> {
  const now = deps.now();
  const { code, retryAt, unexpected } = settleFailure(error, operation.attempts, now);
  if (retryAt === null) {
    await aggregation.failOperation(deps.db, operation.operation_id, leaseToken, code, now);
    return { next: "done", unexpected };
  }
  await aggregation.scheduleRetry(deps.db, operation.operation_id, leaseToken, { errorCode: code, retryAt }, now);
  return { next: "retry", at: retryAt, unexpected };
}

function toAgentPlaybook(operation: OperationRecord, cluster: PlaybookCluster, draft: AgentPlaybookDraft, embedding: { values: number[]; model: string }) {
  return {
    agent_version: operation.agent_version,
    playbook_name: draft.playbook_name,
    content: draft.content,
    trigger: draft.trigger,
    rationale: draft.rationale,
    playbook_status: "PENDING" as const,
    playbook_metadata: JSON.stringify({ aggregation_operation_id: operation.operation_id, cluster_size: cluster.members.length }),
    tags: draft.tags,
    status: "CURRENT" as const,
    source_user_playbook_ids: cluster.members.map((m) => m.user_playbook_id),
    embedding: embedding.values,
    embedding_model: embedding.model,
  };
}
