import { endpoints } from "@als/contract";
import { implement } from "../../implement.ts";
import { streamPurgeNotImplemented } from "./stream-purge.ts";

export default implement(endpoints.governance.projectStreamPurgePreview, { handle: async () => streamPurgeNotImplemented() });
