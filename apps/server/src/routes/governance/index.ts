import eraseUser from "./erase-user.ts";
import exportUser from "./export-user.ts";
import getPurgeOperation from "./get-purge-operation.ts";
import projectStreamPurgePreview from "./project-stream-purge-preview.ts";
import projectStreamPurgeUser from "./project-stream-purge-user.ts";
import streamPurgePreview from "./stream-purge-preview.ts";
import streamPurgeUser from "./stream-purge-user.ts";

export const governanceRoutes = {
  exportUser,
  eraseUser,
  getPurgeOperation,
  streamPurgePreview,
  streamPurgeUser,
  projectStreamPurgePreview,
  projectStreamPurgeUser,
};
