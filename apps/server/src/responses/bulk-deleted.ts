import type { BulkDeleteResponse } from "@als/contract";

export const bulkDeleted = (count: number): BulkDeleteResponse => ({ success: true, deleted_count: count, message: `Deleted ${count} item(s)` });
