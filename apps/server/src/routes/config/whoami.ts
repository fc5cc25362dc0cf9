import { NoInput, WhoamiResponse } from "@als/contract";
import { maskedStorageLabel } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const whoami = defineOperation({
  procedure: "service.whoami",
  method: "GET",
  path: "/api/whoami",
  summary: "The caller's organisation and where its data lives, credentials masked",
  input: NoInput,
  output: WhoamiResponse,
  async handle({ deps, scope }) {
    return { org_id: scope.orgId, storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps) };
  },
});
