import { parseArgs } from "node:util";
import { CliError } from "./cli-error.ts";
import { OPERATOR_COMMANDS, type OperatorCommand, type OptionSpec, type OptionValues } from "./operator-commands.ts";

export type CommandLine = { kind: "help"; text: string } | { kind: "run"; command: OperatorCommand; values: OptionValues; json: boolean };

/** Options every command takes. */
const COMMON_OPTIONS: Record<string, OptionSpec> = {
  json: { type: "boolean", help: "print the result as one JSON object (progress stays on stderr)" },
  help: { type: "boolean", help: "show this help" },
};

const GENERAL_HELP = `als: the operator CLI of the agent learning service

Usage: scripts/als <command> [options]    (scripts/als <command> --help for its options)

Commands:
${OPERATOR_COMMANDS.map((command) => `  ${command.words.join(" ").padEnd(19)}${command.summary}`).join("\n")}

org, key, governance and project work on the database the server uses, configured by the same
environment: DATABASE_URL (full mode, PostgreSQL) or DATA_DIR (embedded mode, PGlite under
DATA_DIR/pglite, default .data), and bring its schema up to date first, as the server does.
Embedded mode: PGlite must never be opened by two processes at once, so stop the embedded server
first. als asks http://HOST:PORT/health (the server's HOST and PORT, default 127.0.0.1:8081) and
refuses while an embedded server answers there. In full mode the server may keep running.

import and export talk to a running service through its HTTP API (--url, default
http://127.0.0.1:8081) and open no database: they work while the server runs, in both modes.

Results go to stdout (--json for one JSON object), progress and notices to stderr. A bad argument,
an unknown organisation or a running embedded server exits with 1 and says which.`;

const SERVICE_NOTE =
  "It talks to the service's HTTP API (--url) and opens no database, so the server keeps running; the service checks the credential as for any client.";

const DATABASE_NOTE = "It uses the server's database (DATABASE_URL, else DATA_DIR); in embedded mode, stop the server first (scripts/als --help).";

/** `["org", "create", "--name", "Acme", ...]` → the command and its option values, or the help asked for. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [group, action, ...afterAction] = argv;
  if (group === undefined || group === "--help" || group === "-h" || group === "help") return { kind: "help", text: GENERAL_HELP };
  const ofGroup = OPERATOR_COMMANDS.filter((command) => command.words[0] === group);
  if (ofGroup.length === 0) {
    const groups = [...new Set(OPERATOR_COMMANDS.map((command) => command.words[0]))].join(", ");
    throw new CliError(`unknown command '${group}'; the commands are ${groups} (scripts/als --help)`);
  }
  // A command of one word (`import`) takes everything after it; the others name an action first.
  const single = ofGroup.find((each) => each.words.length === 1);
  const command = single ?? ofGroup.find((each) => each.words[1] === action);
  const rest = single ? argv.slice(1) : afterAction;
  if (command === undefined) {
    if (action === "--help" || action === "-h") return { kind: "help", text: `${ofGroup.map(commandHelp).join("\n\n")}\n\n${DATABASE_NOTE}` };
    const actions = ofGroup.map((each) => each.words[1]).join(", ");
    throw new CliError(
      `${action === undefined ? `${group} needs` : `unknown command '${group} ${action}'; use`} one of: ${actions} (scripts/als ${group} --help)`,
    );
  }
  const name = command.words.join(" ");
  const note = command.reaches === "database" ? DATABASE_NOTE : SERVICE_NOTE;
  const seeHelp = `(scripts/als ${name} --help)`;
  const specs = { ...command.options, ...COMMON_OPTIONS };
  // No `multiple`: a repeated option keeps its last value, so every value is a string or a boolean.
  const options: Record<string, { type: "string" | "boolean"; short?: string; default?: string }> = {};
  for (const [option, spec] of Object.entries(specs)) {
    options[option] = { type: spec.type, ...(spec.default !== undefined && { default: spec.default }), ...(option === "help" && { short: "h" }) };
  }
  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: rest, options, strict: true, allowPositionals: command.positional !== undefined }));
  } catch (error) {
    // parseArgs names the argument (`Unknown option '--nmae'`); say which command it was given to.
    throw new CliError(`${name}: ${error instanceof Error ? error.message : String(error)} ${seeHelp}`);
  }
  if (values.help === true) return { kind: "help", text: `${commandHelp(command)}\n\n${note}` };
  if (command.positional) {
    const { name: field, placeholder } = command.positional;
    if (positionals.length !== 1) throw new CliError(`${name}: give one ${placeholder} ${seeHelp}`);
    values = { ...values, [field]: positionals[0] };
  }
  for (const [option, spec] of Object.entries(command.options)) {
    const value = values[option];
    if (spec.required && value === undefined) throw new CliError(`${name}: --${option} is required ${seeHelp}`);
    if (typeof value === "string" && value.trim() === "") throw new CliError(`${name}: --${option} must not be empty`);
  }
  return { kind: "run", command, values, json: values.json === true };
}

function commandHelp(command: OperatorCommand): string {
  const specs = { ...command.options, ...COMMON_OPTIONS };
  const usage = Object.entries(specs)
    .map(([option, spec]) => {
      const written = spec.placeholder ? `--${option} ${spec.placeholder}` : `--${option}`;
      return spec.required ? written : `[${written}]`;
    })
    .join(" ");
  const lines = Object.entries(specs).map(([option, spec]) => {
    const written = spec.placeholder ? `--${option} ${spec.placeholder}` : `--${option}`;
    const fallback = spec.default !== undefined ? ` (default: ${spec.default})` : "";
    return `  ${written.padEnd(30)}${spec.help}${fallback}`;
  });
  const positional = command.positional ? `${command.positional.placeholder} ` : "";
  const positionalLine = command.positional ? `  ${command.positional.placeholder.padEnd(30)}${command.positional.help}\n` : "";
  return `Usage: scripts/als ${command.words.join(" ")} ${positional}${usage}\n\n${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.\n\nOptions:\n${positionalLine}${lines.join("\n")}`;
}
