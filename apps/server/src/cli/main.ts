/**
 * The operator CLI (scripts/als): organisations, API keys, projects and the governance entitlement,
 * on the server's own database. Results go to stdout, progress and notices to stderr; any failure
 * exits with 1 and one line saying what to fix.
 */
import { AppError } from "@als/contract";
import { loadSettings, systemClock } from "@als/core";
import { StorageUnavailableError } from "@als/db";
import { CliError } from "./cli-error.ts";
import { openOperatorDatabase } from "./open-operator-database.ts";
import { parseCommandLine } from "./parse-command-line.ts";

const progress = (line: string) => void process.stderr.write(`als: ${line}\n`);

async function runCommandLine(argv: readonly string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.kind === "help") {
    process.stdout.write(`${line.text}\n`);
    return;
  }
  const settings = loadSettings(process.env);
  const run = await line.command.prepare(line.values, { readStdin: () => Bun.stdin.text() });
  const db = await openOperatorDatabase(settings, progress);
  let result: Awaited<ReturnType<typeof run>>;
  try {
    result = await run({ db, now: systemClock }, progress);
  } finally {
    await db.close();
  }
  process.stdout.write(line.json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.lines.join("\n")}\n`);
  if (result.notice) progress(result.notice);
}

/** One line for what the operator can act on; the stack only for what is a bug. */
function describeFailure(error: unknown): string {
  if (error instanceof CliError || error instanceof AppError) return error.message;
  if (error instanceof StorageUnavailableError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause} (check DATABASE_URL, or DATA_DIR in embedded mode)`;
  }
  // loadSettings names each bad variable in its message.
  if (error instanceof Error && error.message.startsWith("invalid configuration")) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

try {
  await runCommandLine(Bun.argv.slice(2));
} catch (error) {
  process.stderr.write(`als: ${describeFailure(error)}\n`);
  process.exitCode = 1;
}
