import { listenForNotifications, type NotificationListener, projectConfig, type StorageTimeouts } from "@als/db";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";

export interface ConfigChangesLog {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Keeps this process's configuration cache true to what every process of the deployment commits
 * (full mode, several processes on one PostgreSQL): it LISTENs on projectConfig.CONFIG_CHANGES_CHANNEL
 * and forgets each project announced there, or the organisation admin/cache/invalidate names. While
 * it is not listening (before the first LISTEN, after the connection is lost until it listens
 * again) the cache serves nothing, so a change announced meanwhile, and never heard, is still read.
 */
export function followConfigChanges(
  deps: Pick<CoreDeps, "services" | "now">,
  storage: { url: string; timeouts?: StorageTimeouts },
  log: ConfigChangesLog,
  /** Unset: the listener's default. */
  heartbeatMs?: number,
): NotificationListener {
  const cache = deps.services.configs;
  cache.setHeard(false);
  return listenForNotifications(
    {
      url: storage.url,
      channel: projectConfig.CONFIG_CHANGES_CHANNEL,
      applicationName: "als config changes",
      ...(storage.timeouts && { timeouts: storage.timeouts }),
      ...(heartbeatMs !== undefined && { heartbeatMs }),
    },
    {
      notified: (payload) => {
        const announced = parseAnnouncement(payload);
        if (announced.length === 2) cache.forget({ orgId: announced[0], projectId: announced[1] });
        else if (announced.length === 1) cache.forgetOrganisation(announced[0], deps.now());
        else cache.forgetAll();
      },
      listening: () => {
        cache.setHeard(true);
        log.info("configuration changes: listening");
      },
      lost: (error) => {
        cache.setHeard(false);
        log.error("configuration changes: stopped listening; configurations are read uncached until listening again", {
          error: String(error),
          ...(error instanceof Error && error.cause !== undefined && { cause: String(error.cause) }),
        });
      },
    },
  );
}

/**
 * [org_id, project_id] (a project changed) or [org_id] (an organisation invalidated). Anything else
 * (an empty payload, too long to send, or one this version does not know) makes it forget
 * everything rather than keep something stale.
 */
const Announcement = z.union([z.tuple([z.string(), z.string()]), z.tuple([z.string()])]);

function parseAnnouncement(payload: string): [] | z.infer<typeof Announcement> {
  try {
    return Announcement.parse(JSON.parse(payload));
  } catch {
    return [];
  }
}
