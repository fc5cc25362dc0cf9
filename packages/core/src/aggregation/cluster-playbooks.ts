import { createHash } from "node:crypto";
import type { AggregationInput } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";

export interface PlaybookCluster {
  /** The SHA-256 of the sorted member ids: equal keys, equal members. */
  key: string;
  members: AggregationInput[];
}

/**
 * Clusters user playbooks by the cosine similarity of their vectors (average linkage cut at
 * `similarity`, on the compute pool); clusters smaller than `minClusterSize` are dropped.
 */
export async function clusterPlaybooks(
  deps: Pick<CoreDeps, "compute">,
  inputs: AggregationInput[],
  settings: { similarity: number; minClusterSize: number },
): Promise<PlaybookCluster[]> {
  if (!deps.compute) throw new Error("aggregation needs the compute pool (deps.compute)");
  if (inputs.length < settings.minClusterSize) return [];
  const dims = inputs[0]!.embedding.length;
  const vectors = new Float32Array(inputs.length * dims);
  for (const [row, input] of inputs.entries()) vectors.set(input.embedding, row * dims);
  const labels = await deps.compute.clusterEmbeddings({ vectors, dims, threshold: settings.similarity, minClusterSize: settings.minClusterSize });
  const clustered = inputs.flatMap((input, row) => (labels[row]! >= 0 ? [{ input, label: labels[row]! }] : []));
  return [...groupBy(clustered, (c) => c.label).values()].map((group) => {
    const members = group.map((c) => c.input);
    return { key: clusterKey(members), members };
  });
}

export function clusterKey(members: readonly { user_playbook_id: number }[]): string {
  const ids = members.map((m) => m.user_playbook_id).sort((a, b) => a - b);
  return createHash("sha256").update(ids.join(",")).digest("hex");
}
