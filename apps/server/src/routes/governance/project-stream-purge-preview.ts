import { endpoints } from "@als/contract";
import { previewStreamPurge } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.governance.projectStreamPurgePreview, { handle: ({ deps, scope }, input) => previewStreamPurge(deps, scope, input) });
