import manualPlaybooks from "./manual-playbook-generation.ts";
import manualProfiles from "./manual-profile-generation.ts";
import rerunPlaybooks from "./rerun-playbook-generation.ts";
import rerunProfiles from "./rerun-profile-generation.ts";
import upgradeProfiles from "./upgrade-all-profiles.ts";
import upgradeUserPlaybooks from "./upgrade-all-user-playbooks.ts";

export const generationRoutes = { rerunProfiles, manualProfiles, upgradeProfiles, upgradeUserPlaybooks, rerunPlaybooks, manualPlaybooks };
