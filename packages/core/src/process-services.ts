import type { Database } from "@als/db";
import { RankedTurns } from "./concurrency/ranked-turns.ts";
import { ProjectConfigCache } from "./config/config-cache.ts";
import { DEFAULT_PUBLISH_ADMISSION, DEFAULT_SEARCH_CONCURRENCY, type PublishAdmissionSettings, type SearchSettings } from "./deps.ts";
import { PublishSlots } from "./interactions/publish-admission.ts";
import { SharedCommits } from "./interactions/shared-commits.ts";
import type { ProcessActivity } from "./metrics/process-activity.ts";
import { CommonLexemes } from "./search/common-lexemes.ts";
import { SearchSlots } from "./search/search-admission.ts";
import { StoredSecrets } from "./stored-secret.ts";

/**
 * What one process keeps between requests: caches, admission slots and queues. Built once by the
 * composition root (createCoreDeps, or a test's own) and passed in CoreDeps; domain code never keeps
 * such state in a module, so two processes in one test (or two apps over one database) never share
 * it by accident, and none of it is replaced behind the caller's back.
 */
export interface ProcessServices {
  /** Project configurations, served for a while (see ProjectConfigCache). */
  configs: ProjectConfigCache;
  /** The deployment secrets the database holds, read once. */
  secrets: StoredSecrets;
  /** Each table's common lexemes, read at most once a minute. */
  lexemes: CommonLexemes;
  /** The bound on searches under way (SearchSettings.concurrency). */
  searchSlots: SearchSlots;
  /** Embedded (PGlite), the turns searches' statements take on its one thread; absent in PostgreSQL. */
  statementTurns?: RankedTurns;
  /** The bound on publishes under way and their deadline (PublishAdmissionSettings). */
  publishSlots: PublishSlots;
  /** Publishes' group commit (see SharedCommits). */
  sharedCommits: SharedCommits;
  /** What the process measures of itself (its embedding pools, its runtime), shared with its other services. */
  activity: ProcessActivity;
}

/** What the process services are sized by; unset, the defaults. */
export interface ProcessServiceSettings {
  search?: Pick<SearchSettings, "concurrency">;
  publishAdmission?: PublishAdmissionSettings;
}

/** A process's services over its database, measured in its `activity`: called once, by the composition root. */
export function createProcessServices(database: Database, activity: ProcessActivity, settings: ProcessServiceSettings = {}): ProcessServices {
  return {
    activity,
    configs: new ProjectConfigCache(),
    secrets: new StoredSecrets(database),
    lexemes: new CommonLexemes(database),
    searchSlots: new SearchSlots(settings.search?.concurrency ?? DEFAULT_SEARCH_CONCURRENCY),
    ...(database.kind === "pglite" && { statementTurns: new RankedTurns() }),
    publishSlots: new PublishSlots(settings.publishAdmission ?? DEFAULT_PUBLISH_ADMISSION),
    sharedCommits: new SharedCommits(database),
  };
}
