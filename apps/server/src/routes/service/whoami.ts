import { endpoints } from "@als/contract";
import { maskedStorageLabel } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.service.whoami, {
  async handle({ deps, scope, authMode }) {
    return { success: true, org_id: scope.orgId, storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps, authMode === "required") };
  },
});
