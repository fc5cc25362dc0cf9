import { addUserProfile } from "./add-user-profile.ts";
import { deleteAllProfiles } from "./delete-all-profiles.ts";
import { deleteProfile } from "./delete-profile.ts";
import { deleteProfilesByIds } from "./delete-profiles-by-ids.ts";
import { getAllProfiles } from "./get-all-profiles.ts";
import { getProfiles } from "./get-profiles.ts";
import { profileChangeLog } from "./profile-change-log.ts";
import { rerankUserProfiles } from "./rerank-user-profiles.ts";
import { searchProfiles } from "./search-profiles.ts";
import { storageStats } from "./storage-stats.ts";

export const profileOperations = [
  addUserProfile,
  getProfiles,
  getAllProfiles,
  searchProfiles,
  rerankUserProfiles,
  deleteProfile,
  deleteProfilesByIds,
  deleteAllProfiles,
  profileChangeLog,
  storageStats,
];
