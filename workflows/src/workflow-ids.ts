/**
 * Workflow ids are business ids, so a second start of the same job collides with the running one
 * instead of duplicating the work. Kept out of index.ts: every function exported there would become a
 * workflow type.
 */
export function reembedProfilesWorkflowId(job: { orgId: string; projectId: string; modelId: string }): string {
  return `reembed-profiles:${job.orgId}:${job.projectId}:${job.modelId}`;
}

/** One learning run per user: every publish of the user signals it. */
export function learnUserWorkflowId(user: { orgId: string; projectId: string; userId: string }): string {
  return `learn:${user.orgId}:${user.projectId}:${user.userId}`;
}

/** One evaluation timer per session: later publishes find it running. */
export function evaluateSessionWorkflowId(session: { orgId: string; projectId: string; sessionId: string }): string {
  return `evaluate:${session.orgId}:${session.projectId}:${session.sessionId}`;
}

/** One outcome inference timer per session: later publishes signal it. */
export function inferSessionOutcomeWorkflowId(session: { orgId: string; projectId: string; sessionId: string }): string {
  return `infer-outcome:${session.orgId}:${session.projectId}:${session.sessionId}`;
}

/** One collection workflow per activated stream: activation, operations and retries signal it. */
export function collectionWorkflowId(stream: { orgId: string; projectId: string; streamId: string }): string {
  return `collect:${stream.orgId}:${stream.projectId}:${stream.streamId}`;
}
