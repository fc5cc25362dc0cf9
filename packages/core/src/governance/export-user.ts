import { purgeOperations, type Scope, subjectData } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { subjectRefs } from "./subject-refs.ts";

/** Rows read per query: a page is serialized and sent before the next is read, so memory stays bounded whatever the user holds. */
const EXPORT_PAGE_ROWS = 500;
const EXPORT_FORMAT = "als.user_export";
const EXPORT_VERSION = 1;

/**
 * Opens the export of a user of the project: counts the rows of every section, writes the audit row
 * (minimized references and those counts), and returns the bundle as JSON text produced page by page
 * (see UserExportBundle). Pages are read one after another, not in one snapshot: a row written
 * while the export streams may or may not be in it.
 */
export async function exportUser(
  deps: CoreDeps,
  scope: Scope,
  input: { userId: string; requestId: string; actorRef: string },
): Promise<{ subjectRef: string; chunks: AsyncGenerator<string> }> {
  const refs = await subjectRefs(deps, scope, input);
  const counts = await subjectData.countSubjectRows(deps.db, scope, input.userId);
  const now = deps.now();
  await purgeOperations.writeAudit(deps.db, scope, { action: "export_user", actorRef: input.actorRef, purgeId: null, counts, ...refs }, now);
  const head = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    subject_ref: refs.subjectRef,
    user_id: input.userId,
    project_id: scope.projectId,
    exported_at: now,
    counts,
  };
  return { subjectRef: refs.subjectRef, chunks: bundleChunks(deps, scope, input.userId, head) };
}

async function* bundleChunks(deps: CoreDeps, scope: Scope, userId: string, head: Record<string, unknown>): AsyncGenerator<string> {
  yield JSON.stringify(head).slice(0, -1);
  for (const { table } of subjectData.SUBJECT_TABLES) {
    yield `,${JSON.stringify(table)}:[`;
    let after: string | null = null;
    let separator = "";
    for (;;) {
      const page: { rows: Record<string, unknown>[]; last: string | null } = await subjectData.pageSubjectRows(
        deps.db,
        scope,
        userId,
        table,
        after,
        EXPORT_PAGE_ROWS,
      );
      if (page.rows.length > 0) yield separator + page.rows.map((row) => JSON.stringify(row)).join(",");
      separator = ",";
      // PGlite answers on this thread, without a turn of the event loop: yield one, so the socket
      // drains and its backpressure paces the pages (else the whole bundle is read before a byte leaves).
      await new Promise((resolve) => setImmediate(resolve));
      if (page.rows.length < EXPORT_PAGE_ROWS) break;
      after = page.last;
    }
    yield "]";
  }
  yield "}";
}
