import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const PIP_DEADLINE_MS = 15 * 60_000;

function findPython(candidates: string[]): string | undefined {
  for (const candidate of candidates) {
    if (candidate.includes("/") ? existsSync(candidate) : Bun.which(candidate)) return candidate;
  }
  return undefined;
}

async function runToEnd(cmd: string[], what: string): Promise<void> {
  const child = Bun.spawn(cmd, { cwd: ROOT, stdout: "inherit", stderr: "inherit", timeout: PIP_DEADLINE_MS });
  const code = await child.exited;
  if (code !== 0) throw new Error(`${what} failed (exit ${code}${child.signalCode ? `, ${child.signalCode}` : ""})`);
}

/**
 * The Python of a virtual environment under .venvs/, created with the first of `pythons` found and
 * brought to the pinned `requirements` (every package listed, installed without a resolver); a
 * no-op when a stamp says that file is already installed.
 */
export async function ensurePythonVenv(name: string, pythons: string[], requirements: string): Promise<string> {
  const venv = join(ROOT, ".venvs", name);
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    const base = findPython(pythons);
    if (!base) throw new Error(`${name} needs one of ${pythons.join(", ")}; none is installed`);
    mkdirSync(join(ROOT, ".venvs"), { recursive: true });
    console.log(`== creating ${venv} with ${base}`);
    await runToEnd([base, "-m", "venv", venv], `creating ${venv}`);
  }
  const stamp = join(venv, ".requirements.sha256");
  const wanted = createHash("sha256").update(readFileSync(requirements)).digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8").trim() === wanted) return python;
  console.log(`== installing ${requirements} into ${venv}`);
  await runToEnd([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps", "-r", requirements], `pip install -r ${requirements}`);
  writeFileSync(stamp, `${wanted}\n`);
  return python;
}
