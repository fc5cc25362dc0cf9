import { basename } from "node:path";
import { createClient } from "@als/client";
import { CliError } from "./cli-error.ts";
import { exportUserBundle } from "./export-user-bundle.ts";
import { importInteractions } from "./import-interactions.ts";
import type { OptionSpec, OptionValues, ServiceCommand, ServiceCommandIo } from "./operator-commands.ts";
import { formatDuration } from "./progress-bar.ts";

const DEFAULT_URL = "http://127.0.0.1:8081";

const URL_OPTION: OptionSpec = { type: "string", placeholder: "<url>", default: DEFAULT_URL, help: "where the service answers" };

/** A publish of more interactions costs one longer transaction; of fewer, more round trips. */
const DEFAULT_BATCH = "100";
/** Below the service's publish concurrency (16 per process), leaving room for the agents it serves. */
const DEFAULT_CONCURRENCY = "4";
/** Attempts of a publish after 429, 503, 504 or a dropped connection: safe, each carries its Idempotency-Key. */
const PUBLISH_RETRIES = 6;

function serviceUrl(values: OptionValues): string {
  const url = String(values.url);
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new CliError(`--url must be an http:// or https:// address, not '${url}'`);
  }
  return url.replace(/\/+$/, "");
}

function positiveInteger(values: OptionValues, name: string, max: number): number {
  const text = String(values[name]);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) throw new CliError(`--${name} must be a whole number from 1 to ${max}, not '${text}'`);
  return value;
}

const importCommand: ServiceCommand = {
  reaches: "service",
  words: ["import"],
  summary: "publish a JSONL file of interactions or sessions through the API, in batches, resumable (docs/operations.md#import-and-export)",
  positional: { name: "file", placeholder: "<file.jsonl>", help: "one interaction or one session (with `interactions`) a line" },
  options: {
    url: URL_OPTION,
    "api-key": { type: "string", placeholder: "<als_…>", help: "an API key of the project to import into (default: SERVICE_API_KEY; none on a local server)" },
    "batch-size": {
      type: "string",
      placeholder: "<n>",
      default: DEFAULT_BATCH,
      help: "interactions a publish carries at most (a longer session line goes alone)",
    },
    concurrency: { type: "string", placeholder: "<n>", default: DEFAULT_CONCURRENCY, help: "publishes under way at once (one at a time per user)" },
  },
  async run(values, io) {
    const url = serviceUrl(values);
    const batchSize = positiveInteger(values, "batch-size", 10_000);
    const concurrency = positiveInteger(values, "concurrency", 64);
    const apiKey = typeof values["api-key"] === "string" ? values["api-key"] : io.apiKeyFromEnvironment;
    const client = createClient({ baseUrl: url, retries: PUBLISH_RETRIES, ...(apiKey && { apiKey }) });
    const file = String(values.file);
    const summary = await importInteractions({ file, url, client, batchSize, concurrency, output: io.stderr });
    const refusedLines = summary.refused.map(({ line, message }) => `  line ${line}: ${message}`);
    return {
      json: {
        file,
        lines: summary.lines,
        interactions: summary.interactions,
        published: summary.published,
        published_now: summary.publishedNow,
        refused: summary.refused,
        checkpoint: summary.checkpoint,
        seconds: Number(summary.seconds.toFixed(3)),
      },
      lines: [
        `${summary.published} of ${summary.interactions} interactions of ${basename(file)} are published (${summary.publishedNow} by this run, in ${formatDuration(summary.seconds)})`,
        ...(summary.refused.length === 0 ? [] : [`${summary.refused.length} line(s) refused, nothing else lost:`, ...refusedLines]),
        `checkpoint: ${summary.checkpoint} (running the same command again publishes nothing twice; delete it to import the file anew)`,
      ],
    };
  },
};

const exportCommand: ServiceCommand = {
  reaches: "service",
  words: ["export"],
  summary: "write the governance export of a user to a file, through the API (an admin's governance session)",
  options: {
    user: { type: "string", placeholder: "<user_id>", required: true, help: "the user to export" },
    out: { type: "string", placeholder: "<file>", help: "where to write the bundle (default: <user_id>.export.json)" },
    url: URL_OPTION,
    email: { type: "string", placeholder: "<email>", required: true, help: "an admin or owner of an organisation holding the governance entitlement" },
    "password-stdin": { type: "boolean", help: "read the password from stdin (one trailing newline is dropped); else it is asked on the terminal" },
  },
  async run(values, io) {
    const url = serviceUrl(values);
    const userId = String(values.user);
    const out = typeof values.out === "string" ? values.out : `${userId.replace(/[^A-Za-z0-9._-]/g, "_")}.export.json`;
    const password = await readPassword(values, io);
    const summary = await exportUserBundle({ url, userId, out, email: String(values.email), password, output: io.stderr });
    return {
      json: { user_id: userId, path: summary.path, bytes: summary.bytes, rows: summary.rows, seconds: Number(summary.seconds.toFixed(3)) },
      lines: [`wrote the export of ${userId} to ${summary.path}: ${summary.rows} rows, ${summary.bytes} bytes, in ${formatDuration(summary.seconds)}`],
    };
  },
};

async function readPassword(values: OptionValues, io: ServiceCommandIo): Promise<string> {
  if (values["password-stdin"] === true) return (await io.readStdin()).replace(/\r?\n$/, "");
  const typed = await io.promptSecret(`password of ${String(values.email)}: `);
  if (typed === null) throw new CliError("export: no terminal to ask the password on; pass --password-stdin and send it on stdin");
  return typed;
}

/** The commands that talk to a running service instead of opening its database. */
export const SERVICE_COMMANDS: readonly ServiceCommand[] = [importCommand, exportCommand];
