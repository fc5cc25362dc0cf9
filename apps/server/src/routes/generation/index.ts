import { manualPlaybookGeneration } from "./manual-playbook-generation.ts";
import { manualProfileGeneration } from "./manual-profile-generation.ts";
import { rerunPlaybookGeneration } from "./rerun-playbook-generation.ts";
import { rerunProfileGeneration } from "./rerun-profile-generation.ts";
import { upgradeAllProfiles } from "./upgrade-all-profiles.ts";
import { upgradeAllUserPlaybooks } from "./upgrade-all-user-playbooks.ts";

export const generationOperations = [
  rerunProfileGeneration,
  rerunPlaybookGeneration,
  manualProfileGeneration,
  manualPlaybookGeneration,
  upgradeAllProfiles,
  upgradeAllUserPlaybooks,
];
