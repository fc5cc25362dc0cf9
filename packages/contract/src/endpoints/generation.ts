import { SuccessMessageResponse } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  ManualPlaybookGenerationRequest,
  ManualProfileGenerationRequest,
  OperationStatusQuery,
  OperationStatusResponse,
  RerunPlaybookGenerationRequest,
  RerunPlaybookGenerationResponse,
  RerunProfileGenerationRequest,
  RerunProfileGenerationResponse,
  UpgradeAllProfilesRequest,
  UpgradeAllProfilesResponse,
  UpgradeAllUserPlaybooksRequest,
  UpgradeAllUserPlaybooksResponse,
} from "../generation.ts";

export const generationEndpoints = defineResource("generation", {
  rerunProfiles: {
    method: "POST",
    path: "/api/rerun_profile_generation",
    summary: "Regenerate profiles from all matching interactions as PENDING profiles (upgrade_all_profiles makes them current)",
    input: RerunProfileGenerationRequest,
    output: RerunProfileGenerationResponse,
    errors: ["llm_unavailable"],
  },
  manualProfiles: {
    method: "POST",
    path: "/api/manual_profile_generation",
    summary: "Extract profiles now from each user's most recent window of interactions (fire-and-forget; output CURRENT)",
    input: ManualProfileGenerationRequest,
    output: SuccessMessageResponse,
    errors: ["conflict", "llm_unavailable"],
  },
  upgradeProfiles: {
    method: "POST",
    path: "/api/upgrade_all_profiles",
    summary: "Make PENDING profiles current: per user, CURRENT become ARCHIVED and the old ARCHIVED are deleted",
    input: UpgradeAllProfilesRequest,
    output: UpgradeAllProfilesResponse,
  },
  upgradeUserPlaybooks: {
    method: "POST",
    path: "/api/upgrade_all_user_playbooks",
    summary: "Make PENDING user playbooks current: per user and agent version, CURRENT become ARCHIVED and the old ARCHIVED are deleted",
    input: UpgradeAllUserPlaybooksRequest,
    output: UpgradeAllUserPlaybooksResponse,
  },
  rerunPlaybooks: {
    method: "POST",
    path: "/api/rerun_playbook_generation",
    summary: "Regenerate user playbooks from every user's interactions with an agent version as PENDING playbooks",
    input: RerunPlaybookGenerationRequest,
    output: RerunPlaybookGenerationResponse,
    errors: ["llm_unavailable"],
  },
  operationStatus: {
    method: "GET",
    path: "/api/get_operation_status",
    summary:
      "Where the project's latest rerun or manual generation of profiles (profile_generation) or user playbooks (playbook_generation) stands: the run rerun_*_generation answered as operation_id",
    input: OperationStatusQuery,
    output: OperationStatusResponse,
  },
  manualPlaybooks: {
    method: "POST",
    path: "/api/manual_playbook_generation",
    summary: "Extract user playbooks now from each user's most recent window of interactions with an agent version (fire-and-forget; output CURRENT)",
    input: ManualPlaybookGenerationRequest,
    output: SuccessMessageResponse,
    errors: ["conflict", "llm_unavailable"],
  },
});
