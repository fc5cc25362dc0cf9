import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const PIP_DEADLINE_MS = 15 * 60_000;

/** One of the interpreters named (a path, or a name looked up on PATH), the first found. */
function findPython(candidates: string[]): string | undefined {
  return candidates.find((candidate) => (candidate.includes("/") ? existsSync(candidate) : Bun.which(candidate)));
}

/** Runs a command to its end within the pip deadline; its output goes to stderr (stdout may be a protocol's). */
async function runBounded(cmd: string[]): Promise<number> {
  const child = Bun.spawn(cmd, { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  const timer = setTimeout(() => child.kill("SIGKILL"), PIP_DEADLINE_MS);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` holding the lock directory `lock` (mkdir is atomic): the two modes' suites and their
 * halves run side by side, and two of them may want the same environment at once (a second pip
 * into a half-made venv found no pip). A lock whose holder died is taken over.
 */
async function holding<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + PIP_DEADLINE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      let holder = 0;
      try {
        holder = Number(readFileSync(join(lock, "pid"), "utf8"));
      } catch {
        // Just made, or just removed: look again.
      }
      if (holder > 0 && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > giveUpAt) throw new Error(`${lock} is still held after ${PIP_DEADLINE_MS / 60_000} minutes`);
      else await Bun.sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Python of the virtual environment `.venvs/<name>`, created with the first of `pythons` found
 * when missing, and brought to `requirements` (every package pinned, installed without a resolver)
 * unless the stamp says it already is.
 */
export async function ensurePythonVenv(name: string, pythons: string[], requirements: string): Promise<string> {
  mkdirSync(join(ROOT, ".venvs"), { recursive: true });
  return holding(join(ROOT, ".venvs", `${name}.lock`), async () => {
    const venv = join(ROOT, ".venvs", name);
    const python = join(venv, "bin", "python");
    if (!existsSync(python)) {
      const base = findPython(pythons);
      if (!base) throw new Error(`${name} needs one of ${pythons.join(", ")}; none is installed`);
      console.error(`== creating ${venv} with ${base}`);
      if ((await runBounded([base, "-m", "venv", venv])) !== 0) throw new Error(`could not create ${venv}`);
    }
    const stamp = join(venv, ".requirements.sha256");
    const wanted = createHash("sha256").update(readFileSync(requirements)).digest("hex");
    if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === wanted) return python;
    console.error(`== installing ${requirements} into ${venv}`);
    const installed = await runBounded([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps", "-r", requirements]);
    if (installed !== 0) throw new Error(`pip install -r ${requirements} failed`);
    writeFileSync(stamp, `${wanted}\n`);
    return python;
  });
}
