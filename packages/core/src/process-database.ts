import type { Database } from "@als/db";

/** Views of a database made for one piece of work (a search's abortableDatabase) → the database they view. */
const viewed = new WeakMap<Database, Database>();

/** `view`, noted as a view of `db` made for one piece of work (see processDatabaseOf). */
export function asViewOf(db: Database, view: Database): Database {
  viewed.set(view, processDatabaseOf(db));
  return view;
}

/**
 * The process's own database behind `db`: what per-process caches (project configurations, stored
 * secrets) are keyed by. A search runs on a view made for it alone (abortableDatabase); keyed by that
 * view, such a cache would be new for every search, and every search would read (and, for a stored
 * secret, write) again what it caches.
 */
export function processDatabaseOf(db: Database): Database {
  return viewed.get(db) ?? db;
}
