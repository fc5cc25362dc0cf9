import type { ProjectConfig } from "@als/contract";
import type { Scope } from "@als/db";

/**
 * How long a cached configuration is served. Writes by this process and admin/cache/invalidate
 * clear it at once, and so, in full mode, does every change another process commits (announced by
 * migration 0048's trigger, heard by followConfigChanges). This bounds only what announces nothing:
 * rows written with triggers off (a restore), which admin/cache/invalidate clears at once.
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
   * False while changes committed by other processes may go unheard (see setHeard): every read then
   * loads afresh and nothing is kept. A database only this process uses is always heard.
   */
  private heard = true;

  /**
   * The cached configuration, or `load`'s, cached. The load itself is cached, so concurrent misses
   * share one read; a load that fails is forgotten again.
   */
  read(scope: Scope, now: number, load: () => Promise<ProjectConfig>): Promise<ProjectConfig> {
    if (!this.heard) return load();
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

  /**
   * Whether changes committed by other processes are heard from now on. Either way everything kept
   * is forgotten: what was read before it stopped hearing may have changed unheard, and once it hears
   * again the next read of each project loads what is stored now.
   */
  setHeard(heard: boolean): void {
    this.heard = heard;
    this.entries.clear();
  }

  forgetAll(): void {
    this.entries.clear();
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
