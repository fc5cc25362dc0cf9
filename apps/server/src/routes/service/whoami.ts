import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { maskedStorageLabel } from "@als/core";

export default implement(endpoints.service.whoami, {
  async handle({ deps, scope }) {
    return { success: true, org_id: scope.orgId, storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps) };
  },
});
