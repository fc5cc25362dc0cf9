/**
 * The operator CLI (scripts/als): organisations, API keys, projects and the governance entitlement,
 * on the server's own database; import and export of interactions through a running service's API. Results go to stdout, progress and notices to stderr; any failure
 * exits with 1 and one line saying what to fix.
 */
import { AppError } from "@als/contract";
import { loadSettings, systemClock } from "@als/core";
import { StorageUnavailableError } from "@als/db";
import { CliError } from "./cli-error.ts";
import { openOperatorDatabase } from "./open-operator-database.ts";
import type { CommandResult, DatabaseCommand, OptionValues } from "./operator-commands.ts";
import { parseCommandLine } from "./parse-command-line.ts";
import { promptSecret } from "./prompt-secret.ts";

const progress = (line: string) => void process.stderr.write(`als: ${line}\n`);

async function runCommandLine(argv: readonly string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.kind === "help") {
    process.stdout.write(`${line.text}\n`);
    return;
  }
  const { command } = line;
  let result: CommandResult;
  if (command.reaches === "service") {
    // It opens no database, so it reads none of the server's settings either.
    result = await command.run(line.values, {
      readStdin: () => Bun.stdin.text(),
      promptSecret,
      stderr: process.stderr,
      apiKeyFromEnvironment: process.env.SERVICE_API_KEY || undefined,
    });
  } else {
    result = await runOnDatabase(command, line.values);
  }
  process.stdout.write(line.json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.lines.join("\n")}\n`);
  if (result.notice) progress(result.notice);
}

async function runOnDatabase(command: DatabaseCommand, values: OptionValues): Promise<CommandResult> {
  const settings = loadSettings(process.env);
  const run = await command.prepare(values, { readStdin: () => Bun.stdin.text() });
  const db = await openOperatorDatabase(settings, progress);
  try {
    return await run({ db, now: systemClock }, progress);
  } finally {
    await db.close();
  }
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
