import manualPlaybooks from "./manual-playbooks.ts";
import manualProfiles from "./manual-profiles.ts";
import operationStatus from "./operation-status.ts";
import rerunPlaybooks from "./rerun-playbooks.ts";
import rerunProfiles from "./rerun-profiles.ts";
import upgradeProfiles from "./upgrade-profiles.ts";
import upgradeUserPlaybooks from "./upgrade-user-playbooks.ts";

export const generationRoutes = { rerunProfiles, manualProfiles, upgradeProfiles, upgradeUserPlaybooks, rerunPlaybooks, operationStatus, manualPlaybooks };
