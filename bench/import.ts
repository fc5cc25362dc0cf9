/**
 * scripts/als import of a large JSONL file into a real embedded server (its own process, as
 * scripts/serve runs it, on a fresh DATA_DIR), with the CLI SIGKILLed midway and run again. Reports
 * the import's rate, the ETA the progress line showed at 25% and 50% against the time the rest
 * actually took (the pause between the kill and the resume left out), the duplicates and the missing
 * interactions counted through the API afterwards, and the total time.
 *
 *   bun bench/import.ts [--interactions 20000] [--users 10] [--kill-at 60] [--batch-size 100] [--concurrency 4]
 *
 * The file interleaves the users' turns as a log in time order does, one interaction a line. The
 * CLI runs without a terminal, so it prints a plain progress line every 5%; the bench notes when
 * each arrives. Progress goes to stderr, the report to stdout. The data directory is deleted at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@als/client";
import { randomPort, spawnServer, until } from "@als/test-support/server-process.ts";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption } from "./lib/options.ts";
import { markdownTable } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CLI = join(ROOT, "apps/server/src/cli/main.ts");

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      interactions: { type: "string", default: "20000" },
      users: { type: "string", default: "10" },
      "kill-at": { type: "string", default: "60" },
      "batch-size": { type: "string", default: "100" },
      concurrency: { type: "string", default: "4" },
    },
    strict: true,
  });
  return {
    interactions: integerOption("interactions", values.interactions, 1),
    users: integerOption("users", values.users, 1),
    killAt: integerOption("kill-at", values["kill-at"], 1),
    batchSize: values["batch-size"],
    concurrency: values.concurrency,
  };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** A progress line of the CLI and when the bench read it. */
interface Seen {
  at: number;
  percent: number;
  done: number;
  rate: number;
  etaSeconds: number | null;
}

const PROGRESS_LINE = /^import +(\d+)% (\d+)\/(\d+) interactions · (\d+)\/s · ETA (\S+)$/;

/** "1m15s" → 75, "1h01m" → 3660, "--" → null. */
function parseEta(text: string): number | null {
  if (text === "--") return null;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!match) throw new Error(`not an ETA: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

/** Runs the CLI, noting each progress line as it arrives; `stopWhen` a line says so, it is SIGKILLed. */
async function runImport(
  args: string[],
  stopWhen: (seen: Seen) => boolean,
): Promise<{ seen: Seen[]; started: number; ended: number; killed: boolean; stdout: string }> {
  const started = performance.now();
  const child = Bun.spawn(["bun", CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
  const seen: Seen[] = [];
  let killed = false;
  let buffered = "";
  const decoder = new TextDecoder();
  const stdout = new Response(child.stdout).text();
  for await (const chunk of child.stderr) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      const match = PROGRESS_LINE.exec(line);
      if (!match) continue;
      const entry = { at: performance.now(), percent: Number(match[1]), done: Number(match[2]), rate: Number(match[4]), etaSeconds: parseEta(match[5]!) };
      seen.push(entry);
      if (!killed && stopWhen(entry)) {
        child.kill("SIGKILL");
        killed = true;
      }
    }
  }
  const code = await child.exited;
  if (!killed && code !== 0) throw new Error(`the import exited with ${code}`);
  return { seen, started, ended: performance.now(), killed, stdout: await stdout };
}

async function main(): Promise<void> {
  const opts = options();
  const dataDir = mkdtempSync(join(tmpdir(), "als-bench-import-"));
  const port = randomPort();
  const url = `http://127.0.0.1:${port}`;
  const file = join(dataDir, "history.jsonl");
  const lines: string[] = [];
  for (let index = 0; index < opts.interactions; index++) {
    const user = `user-${index % opts.users}`;
    const role = Math.floor(index / opts.users) % 2 === 0 ? "User" : "Agent";
    lines.push(
      JSON.stringify({ user_id: user, session_id: `${user}-history`, role, content: `turn ${index}: the weekly report goes to the finance team on Fridays` }),
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
  progress(`starting an embedded server on ${url} (DATA_DIR ${dataDir})`);
  const server = spawnServer(port, { DATA_DIR: join(dataDir, "data"), EMBEDDING_MODEL_DIR: defaultModelDir(ROOT) });
  try {
    await until(async () => ((await fetch(`${url}/health`)).ok ? true : undefined), 120_000);
    const loadBefore = loadAverage();
    const args = ["import", file, "--url", url, "--batch-size", opts.batchSize, "--concurrency", opts.concurrency];
    progress(`importing ${opts.interactions} interactions of ${opts.users} users, killed at ${opts.killAt}%`);
    const first = await runImport(args, (seen) => seen.percent >= opts.killAt);
    if (!first.killed) throw new Error("the import finished before the kill");
    const killedAt = first.seen.at(-1)!;
    progress(`killed at ${killedAt.percent}% (${killedAt.done} interactions); resuming`);
    const second = await runImport([...args, "--json"], () => false);
    const summary = JSON.parse(second.stdout) as { published: number; published_now: number };
    const loadAfter = loadAverage();

    // Work time: both runs from their start to their last line, without the pause between them.
    const workSeconds = (first.ended - first.started + (second.ended - second.started)) / 1000;
    const finishedAt = (from: number) => (first.ended - from + (second.ended - second.started)) / 1000;
    const etaRow = (percent: number) => {
      const line = first.seen.find((seen) => seen.percent >= percent);
      if (!line || line.etaSeconds === null) return [`${percent}%`, "—", "—", "—"];
      const actual = finishedAt(line.at);
      return [`${percent}% (${line.done})`, `${line.etaSeconds} s`, `${actual.toFixed(1)} s`, `${(((line.etaSeconds - actual) / actual) * 100).toFixed(0)}%`];
    };

    const out: string[] = [];
    out.push(`# scripts/als import: ${opts.interactions} interactions, killed at ${killedAt.percent}% and resumed`, "");
    out.push(...hostFacts().map((fact) => `- ${fact}`));
    out.push(`- embedded server (its own process), batch size ${opts.batchSize}, concurrency ${opts.concurrency}, ${opts.users} users interleaved`);
    out.push(`- load average before / after: ${loadBefore} | ${loadAfter}`, "");
    out.push(
      markdownTable(
        ["run", "interactions", "seconds", "interactions/s"],
        [
          [
            "until the kill",
            String(killedAt.done),
            ((first.ended - first.started) / 1000).toFixed(1),
            (killedAt.done / ((first.ended - first.started) / 1000)).toFixed(0),
          ],
          [
            "resumed",
            String(summary.published_now),
            ((second.ended - second.started) / 1000).toFixed(1),
            (summary.published_now / ((second.ended - second.started) / 1000)).toFixed(0),
          ],
          ["total (work time)", String(summary.published), workSeconds.toFixed(1), (summary.published / workSeconds).toFixed(0)],
        ],
      ),
      "",
    );
    out.push(markdownTable(["ETA shown at", "ETA", "actual remaining", "error"], [etaRow(25), etaRow(50)]), "");
    // The import's figures first: counting may take long while the server embeds what was imported.
    process.stdout.write(`${out.join("\n")}\n`);
    out.length = 0;

    progress("counting what is stored, user by user, through the API");
    // The server is still learning from (embedding) what was imported: reads may wait behind it.
    const client = createClient({ baseUrl: url, timeoutMs: 600_000 });
    const countingStarted = performance.now();
    const contents: string[] = [];
    for (let user = 0; user < opts.users; user++) {
      const { interactions } = await client.interactions.get({ user_id: `user-${user}`, top_k: 10_000 });
      contents.push(...interactions.map((interaction) => interaction.content));
    }
    const countingSeconds = (performance.now() - countingStarted) / 1000;
    const unique = new Set(contents).size;

    out.push(
      markdownTable(
        ["stored (API)", "unique", "duplicates", "missing"],
        [[String(contents.length), String(unique), String(contents.length - unique), String(opts.interactions - unique)]],
      ),
      "",
      `Counting took ${countingSeconds.toFixed(1)} s (${opts.users} get_interactions calls after the import).`,
    );
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    // Its data is thrown away: a bounded graceful stop, then a kill.
    server.kill("SIGTERM");
    const stopped = await Promise.race([server.exited.then(() => true), Bun.sleep(20_000).then(() => false)]);
    if (!stopped) server.kill("SIGKILL");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
