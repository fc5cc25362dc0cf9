import type { DeletedRequests } from "@als/db";

export const deletedRequests = (deleted: DeletedRequests) => ({
  success: true,
  message: `Deleted ${deleted.requests} request(s) and ${deleted.interactions} interaction(s)`,
  deleted_requests: deleted.requests,
  deleted_requests_count: deleted.requests,
  deleted_interactions: deleted.interactions,
});
