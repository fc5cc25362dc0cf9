import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem, type } from "node:os";
import { dirname, join } from "node:path";
import type { Database } from "@als/db";

/** The installed version of a package as `fromDir` would resolve it, or "?" . */
export function packageVersion(name: string, fromDir: string): string {
  try {
    let dir = dirname(Bun.resolveSync(name, fromDir));
    while (dir !== dirname(dir)) {
      const manifest = join(dir, "package.json");
      if (existsSync(manifest)) {
        const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
        if (parsed.name === name) return parsed.version ?? "?";
      }
      dir = dirname(dir);
    }
  } catch {}
  return "?";
}

export function hostFacts(): string[] {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return [
    `machine: ${availableParallelism()} cores (${cpu}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${type()} ${release()}`,
    `runtime: Bun ${Bun.version} (${Bun.revision.slice(0, 9)})`,
  ];
}

export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");

/** Server version and pgvector version of an open database, plus the settings that matter here. */
export async function databaseFacts(db: Database): Promise<string> {
  const [row] = await db.query<{
    version: string;
    vector: string | null;
    shared_buffers: string;
    work_mem: string;
    iterative: string;
    ef: string;
    parallel: string;
  }>(
    `SELECT current_setting('server_version') AS version,
       (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector,
       current_setting('shared_buffers') AS shared_buffers, current_setting('work_mem') AS work_mem,
       current_setting('hnsw.iterative_scan') AS iterative, coalesce(current_setting('hnsw.ef_search', true), '40 (default; pgvector not yet loaded in this session)') AS ef,
       current_setting('max_parallel_maintenance_workers') AS parallel`,
  );
  if (!row) return "?";
  return `PostgreSQL ${row.version}, pgvector ${row.vector ?? "none"}, shared_buffers ${row.shared_buffers}, work_mem ${row.work_mem}, hnsw.iterative_scan ${row.iterative}, hnsw.ef_search ${row.ef}, max_parallel_maintenance_workers ${row.parallel} (index builds)`;
}

const MB = 1024 * 1024;

/** The process's resident memory in MB. Bun's reading of it fails now and then with EINTR (errno 4): read again. */
export function residentMb(): number {
  for (let attempt = 1; ; attempt++) {
    try {
      return process.memoryUsage.rss() / MB;
    } catch (error) {
      if (attempt === 5 || (error as { errno?: number }).errno !== 4) throw error;
    }
  }
}

/**
 * CPU milliseconds that this machine's PostgreSQL processes have spent so far (`postgres` in
 * /proc/<pid>/comm: the server and its backends), or null where /proc cannot tell. Two readings
 * around a run give the database's share of it when the server runs beside the bench; a backend
 * that exits meanwhile takes its share with it, which pooled connections do not do.
 */
export function postgresCpuMillis(): number | null {
  if (!existsSync("/proc/self/stat")) return null;
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      // After the command's closing parenthesis: state is field 3, utime and stime fields 14 and 15.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the reading.
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** The kernel's USER_HZ, in which /proc reports CPU time: 100 on every Linux build Bun runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
