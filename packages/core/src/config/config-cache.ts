import type { ProjectConfig } from "@als/contract";
import type { Scope } from "@als/db";

/**
 * How long a cached configuration is served. Writes by this process and admin/cache/invalidate
 * clear it at once; a write by another API process (full mode runs several) reaches this one after
 * at most this long.
 */
const CACHE_SECONDS = 30;

interface Entry {
  orgId: string;
  config: Promise<ProjectConfig>;
  expiresAt: number;
}

/** Parsed configurations of one database's projects, held by this process (ProcessServices.configs). */
export class ProjectConfigCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * The cached configuration, or `load`'s, cached. The load itself is cached, so concurrent misses
   * share one read; a load that fails is forgotten again.
   */
  read(scope: Scope, now: number, load: () => Promise<ProjectConfig>): Promise<ProjectConfig> {
    const key = keyOf(scope);
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.config;
    const entry: Entry = { orgId: scope.orgId, config: load(), expiresAt: now + CACHE_SECONDS };
    this.entries.set(key, entry);
    entry.config.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.config;
  }

  /** Called once a change is committed: a load begun before it may hold the old value, and goes too. */
  forget(scope: Scope): void {
    this.entries.delete(keyOf(scope));
  }

  /** Forgets every project of the organisation; false when none was cached. */
  forgetOrganisation(orgId: string, now: number): boolean {
    let forgotLive = false;
    for (const [key, entry] of this.entries) {
      if (entry.orgId !== orgId) continue;
      this.entries.delete(key);
      forgotLive ||= entry.expiresAt > now;
    }
    return forgotLive;
  }
}

// A JSON array cannot be re-split differently, whatever characters the ids hold.
const keyOf = (scope: Scope) => JSON.stringify([scope.orgId, scope.projectId]);
