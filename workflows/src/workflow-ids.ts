/**
 * Workflow ids are business ids, so a second start of the same job collides with the running one
 * instead of duplicating the work (those of durable work are in their catalogue entries). Kept out of
 * index.ts: every function exported there would become a workflow type.
 */
export function reembedProfilesWorkflowId(job: { orgId: string; projectId: string; modelId: string }): string {
  return `reembed-profiles:${job.orgId}:${job.projectId}:${job.modelId}`;
}
