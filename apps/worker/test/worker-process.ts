import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const MODEL_DIR = `${ROOT}.cache/models/all-MiniLM-L6-v2-int8`;

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/test starts the services and sets it)`);
  return value;
}

/** A worker as its own process, as in production, so a test can kill it outright. */
export function spawnWorker(options: { databaseUrl: string; taskQueue: string; llmBaseUrl: string }): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: requiredEnv("TEMPORAL_ADDRESS"),
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      EMBEDDING_MODEL_DIR: MODEL_DIR,
      LLM_PROVIDER: "openai-compatible",
      LLM_BASE_URL: options.llmBaseUrl,
      LLM_MODEL: "scripted-model",
      LOG_LEVEL: "error",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
}

export async function stopWorker(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill(signal);
  await exited;
}
