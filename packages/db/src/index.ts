export * from "./driver.ts";
export * from "./scope.ts";
export * from "./open.ts";
export { migrate } from "./migrate.ts";
export * as profiles from "./queries/profiles.ts";
export * as profileChangeLog from "./queries/profile-change-log.ts";
export type { ProfileRecord, ProfileFilters, ProfileStatus, ScoredProfile } from "./queries/profiles.ts";
export type { SearchMode } from "./queries/ranked-search.ts";
