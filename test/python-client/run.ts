/**
 * Drives the published Python client (PyPI `reflexio-ai`) against the real server.
 *
 *   bun test/python-client/run.ts [--only 0.2.32] [--junit-dir DIR] [-- pytest args...]
 *
 * Creates or updates one virtual environment per client version under .venvs/ (a no-op when the
 * pinned requirements are already installed), starts the scripted LLM on 127.0.0.1 and the server
 * in embedded mode on a free port with a fresh DATA_DIR, waits for /health, runs pytest once per
 * version with REFLEXIO_TEST_URL set, then runs the newest version once more against a hosted server
 * (AUTH_MODE=required) with an API key made by the operator CLI, passed as REFLEXIO_API_KEY the way
 * the client reads it, and stops everything it started whatever happens. Prints
 * pytest's closing line for each version, then a total line; exits non-zero when a test failed.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { ensurePythonVenv } from "@als/test-support/python-venv.ts";
import type { Subprocess } from "bun";
import { pythonClientReply } from "./scripted-llm.ts";

/** The colour codes pytest may write, removed before its closing line is read. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what this matches.
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

const ROOT = new URL("../../", import.meta.url).pathname;
const SUITE = new URL("./", import.meta.url).pathname;
/** The stand-in cross-encoder of the server tests (test/support/tiny-cross-encoder.ts), for rerank_user_profiles. */
const TINY_CROSS_ENCODER_DIR = join(ROOT, "test/fixtures/tiny-cross-encoder");

/** Each published client version with the Python it needs (its newest release for that Python). */
const VERSIONS = [
  { version: "0.2.32", pythons: ["/root/.pyenv/versions/3.12.1/bin/python3.12", "python3.12"] },
  { version: "0.2.8", pythons: ["/root/.pyenv/versions/3.11.7/bin/python3.11", "python3.11"] },
];

const HEALTH_DEADLINE_MS = 90_000;
const PYTEST_DEADLINE_MS = 20 * 60_000;
const STOP_GRACE_MS = 10_000;

interface Options {
  only: string | undefined;
  junitDir: string | undefined;
  pytestArgs: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { only: undefined, junitDir: undefined, pytestArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      options.pytestArgs = argv.slice(i + 1);
      break;
    }
    if (arg === "--only") options.only = argv[++i];
    else if (arg === "--junit-dir") options.junitDir = argv[++i];
    else throw new Error(`unknown argument ${arg} (use --only VERSION, --junit-dir DIR, -- PYTEST_ARGS)`);
  }
  return options;
}

// -- processes we start, and stopping them ------------------------------------

const running = new Set<Subprocess>();
const cleanups: (() => Promise<void> | void)[] = [];

async function stop(child: Subprocess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(STOP_GRACE_MS).then(() => false)]);
  if (!exited) {
    child.kill("SIGKILL");
    await Promise.race([child.exited, Bun.sleep(STOP_GRACE_MS)]);
  }
  running.delete(child);
}

let cleaningUp: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaningUp ??= (async () => {
    await Promise.all([...running].map(stop));
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  })();
  return cleaningUp;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the server and the tests`);
    void cleanUp().then(() => process.exit(130));
  });
}

/** Runs a command to completion within a deadline, its output passed through (and returned). */
async function run(cmd: string[], options: { env?: Record<string, string>; deadlineMs: number; capture?: boolean }): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(cmd, { cwd: ROOT, env: options.env ?? (process.env as Record<string, string>), stdout: "pipe", stderr: "pipe" });
  running.add(child);
  let output = "";
  const pass = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      if (options.capture) output += text;
      sink.write(text);
    }
  };
  const timer = setTimeout(() => {
    console.error(`\n${cmd.join(" ")}: still running after ${options.deadlineMs / 1000} s, stopping it`);
    void stop(child);
  }, options.deadlineMs);
  try {
    await Promise.all([pass(child.stdout, process.stdout), pass(child.stderr, process.stderr)]);
    const code = await child.exited;
    return { code, output };
  } finally {
    clearTimeout(timer);
    running.delete(child);
  }
}

// -- virtual environments -------------------------------------------------------

/** The venv of one client version, created if missing and brought to its pinned requirements. */
function ensureVenv(version: string, pythons: string[]): Promise<string> {
  return ensurePythonVenv(`reflexio-${version}`, pythons, join(SUITE, `requirements-${version}.txt`));
}

// -- the server -----------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(llmBaseUrl: string, dataDir: string, logFile: string, port: number, extraEnv: Record<string, string> = {}): Promise<string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  // Embedded mode whatever the calling shell has set up for the other suites.
  for (const key of ["DATABASE_URL", "TEMPORAL_ADDRESS", "QDRANT_URL", "QDRANT_API_KEY", "EMBEDDING_PROVIDER", "LLM_API_KEY"]) delete env[key];
  Object.assign(env, {
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llmBaseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
    RERANK_MODEL_DIR: TINY_CROSS_ENCODER_DIR,
    LOG_LEVEL: "warn",
    ...extraEnv,
  });
  const server = Bun.spawn(["bun", "apps/server/src/main.ts"], { cwd: ROOT, env, stdout: Bun.file(logFile), stderr: Bun.file(`${logFile}.err`) });
  running.add(server);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + HEALTH_DEADLINE_MS;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode} before answering /health:\n${serverLog(logFile)}`);
    try {
      const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (health.ok) return url;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`the server did not answer /health within ${HEALTH_DEADLINE_MS / 1000} s:\n${serverLog(logFile)}`);
    await Bun.sleep(200);
  }
}

function serverLog(logFile: string): string {
  const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");
  return `${read(logFile)}${read(`${logFile}.err`)}`.split("\n").slice(-40).join("\n");
}

/**
 * An organisation and its first full-access key, made by the operator CLI (scripts/als) on the data
 * directory the hosted server will open; the CLI runs before that server starts (PGlite takes one
 * process at a time).
 */
async function createHostedKey(dataDir: string, port: number): Promise<string> {
  const cli = Bun.spawn(
    ["bun", "apps/server/src/cli/main.ts", "org", "create", "--name", "python client", "--owner-email", "owner@python-client.example", "--json"],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, PORT: String(port) },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  running.add(cli);
  // Read, never echoed: stdout carries the key's value.
  const [stdout, stderr, code] = await Promise.all([new Response(cli.stdout).text(), new Response(cli.stderr).text(), cli.exited]);
  running.delete(cli);
  if (code !== 0) throw new Error(`als org create exited with ${code}:\n${stderr}`);
  return (JSON.parse(stdout) as { api_key: { value: string } }).api_key.value;
}

// -- pytest's closing line -------------------------------------------------------------

const COUNTED = ["passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed"] as const;
type Counts = Record<"passed" | "failed" | "skipped" | "xfailed" | "xpassed", number>;

/** The last line of pytest's summary ("3 failed, 40 passed, 2 skipped, 13 xfailed in 61.20s"), bare. */
function closingLine(output: string): string | undefined {
  const lines = output.split("\n").map((line) => line.replace(ANSI_COLOUR, "").trim());
  const line = lines.reverse().find((text) => /\b\d+ (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b.* in [\d.]+s/.test(text));
  return line?.replace(/^=+\s*/, "").replace(/\s*=+$/, "");
}

function countsOf(line: string | undefined): Counts {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, xfailed: 0, xpassed: 0 };
  for (const [, n, word] of (line ?? "").matchAll(/(\d+) (\w+)/g)) {
    if (!COUNTED.includes(word as (typeof COUNTED)[number])) continue;
    const key = word === "error" || word === "errors" ? "failed" : (word as keyof Counts);
    counts[key] += Number(n);
  }
  return counts;
}

// -- main ---------------------------------------------------------------------------------

async function main(): Promise<number> {
  const options = parseArgs(Bun.argv.slice(2));
  const versions = VERSIONS.filter((v) => !options.only || v.version === options.only);
  if (versions.length === 0) throw new Error(`no client version ${options.only} (have ${VERSIONS.map((v) => v.version).join(", ")})`);

  const pythons = new Map<string, string>();
  for (const { version, pythons: candidates } of versions) pythons.set(version, await ensureVenv(version, candidates));

  const work = mkdtempSync(join(tmpdir(), "als-python-client-"));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const llm = await startFakeLlmServer(pythonClientReply);
  cleanups.push(() => llm.close());
  const logFile = join(work, "server.log");
  console.log("== starting the server (embedded mode, scripted LLM)");
  const url = await startServer(llm.baseUrl, join(work, "data"), logFile, await freePort());
  console.log(`== server at ${url}`);

  const summaries: { version: string; line: string; counts: Counts; code: number }[] = [];
  const pytest = async (version: string, label: string, serverUrl: string, apiKey?: string) => {
    console.log(`\n== reflexio-ai ${label} (pytest)`);
    const junit = options.junitDir ? ["--junitxml", join(options.junitDir, `reflexio-${label.replaceAll(/[^\w.]+/g, "-")}.xml`)] : [];
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      REFLEXIO_TEST_URL: serverUrl,
      PYTHONDONTWRITEBYTECODE: "1",
      NO_COLOR: "1",
    };
    for (const key of ["REFLEXIO_API_KEY", "REFLEXIO_URL", "REFLEXIO_API_URL", "IS_TEST_ENV"]) delete env[key];
    // The client reads its key from REFLEXIO_API_KEY (contract: Authentication 4), the suite's own calls too.
    if (apiKey !== undefined) env.REFLEXIO_API_KEY = apiKey;
    const result = await run([pythons.get(version)!, "-m", "pytest", SUITE, "-q", "--color=no", ...junit, ...options.pytestArgs], {
      env,
      deadlineMs: PYTEST_DEADLINE_MS,
      capture: true,
    });
    const line = closingLine(result.output) ?? `no pytest summary (pytest exited with ${result.code})`;
    summaries.push({ version: label, line, counts: countsOf(line), code: result.code });
  };
  for (const { version } of versions) await pytest(version, version, url);

  // The newest client once more against a hosted server (AUTH_MODE=required) with an API key.
  const newest = versions[0]!.version;
  const hostedDir = join(work, "hosted");
  const hostedPort = await freePort();
  console.log("\n== starting a hosted server (AUTH_MODE=required) with an organisation and key made by scripts/als");
  const apiKey = await createHostedKey(hostedDir, hostedPort);
  const hostedUrl = await startServer(llm.baseUrl, hostedDir, `${logFile}.hosted`, hostedPort, { AUTH_MODE: "required" });
  await pytest(newest, `${newest} hosted, API key`, hostedUrl, apiKey);

  console.log("\n== python client results");
  const total: Counts = { passed: 0, failed: 0, skipped: 0, xfailed: 0, xpassed: 0 };
  for (const summary of summaries) {
    console.log(`reflexio-ai ${summary.version}: ${summary.line}`);
    for (const key of Object.keys(total) as (keyof Counts)[]) total[key] += summary.counts[key];
  }
  if (existsSync(logFile) && summaries.some((s) => s.code !== 0)) console.log(`\nlast lines of the server log:\n${serverLog(logFile)}`);
  const notCounted = total.skipped + total.xfailed + total.xpassed;
  console.log(`(${total.xfailed} xfailed, ${total.xpassed} xpassed and ${total.skipped} skipped count as neither passed nor failed)`);
  console.log(`python-client: ${total.passed} passed, ${total.failed} failed, ${notCounted} skipped`);
  // pytest: 0 all passed, 1 some failed, 5 none collected; anything else is a usage or internal error.
  const ok = summaries.every((s) => s.code === 0) && total.failed === 0 && total.passed > 0;
  return ok ? 0 : 1;
}

let status = 1;
try {
  status = await main();
} catch (error) {
  console.error(`python-client: ${error instanceof Error ? error.message : String(error)}`);
  status = 1;
} finally {
  await cleanUp();
}
process.exit(status);
