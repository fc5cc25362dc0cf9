import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Prompts are versioned files: `packages/ai/prompts/<name>/v<N>.md`, each with a `# system` and a
 * `# user` section and `{{variable}}` placeholders. A prompt is rendered at its highest version
 * unless a version is pinned; every placeholder must be given, and every given variable used, so a
 * prompt and its caller cannot drift apart silently.
 */
const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));

export interface RenderedPrompt {
  /** `name@vN`, recorded with what the prompt produced. */
  id: string;
  system: string;
  user: string;
}

const loaded = new Map<string, { system: string; user: string }>();

function load(name: string, version: number): { system: string; user: string } {
  const key = `${name}@v${version}`;
  let prompt = loaded.get(key);
  if (!prompt) {
    const text = readFileSync(`${PROMPTS_DIR}${name}/v${version}.md`, "utf8");
    const match = /^# system\s*\n([\s\S]*?)^# user\s*\n([\s\S]*)$/m.exec(text);
    if (!match) throw new Error(`prompt ${key} needs a '# system' and a '# user' section`);
    prompt = { system: match[1]!.trim(), user: match[2]!.trim() };
    loaded.set(key, prompt);
  }
  return prompt;
}

function latestVersion(name: string): number {
  const versions = readdirSync(`${PROMPTS_DIR}${name}`)
    .flatMap((file) => /^v(\d+)\.md$/.exec(file)?.[1] ?? [])
    .map(Number);
  if (versions.length === 0) throw new Error(`no versions of prompt ${name}`);
  return Math.max(...versions);
}

export function renderPrompt(name: string, variables: Record<string, string>, version: number = latestVersion(name)): RenderedPrompt {
  const prompt = load(name, version);
  const used = new Set<string>();
  const fill = (template: string) =>
    template.replace(/\{\{(\w+)\}\}/g, (_, variable: string) => {
      const value = variables[variable];
      if (value === undefined) throw new Error(`prompt ${name}@v${version} needs the variable '${variable}'`);
      used.add(variable);
      return value;
    });
  const rendered = { id: `${name}@v${version}`, system: fill(prompt.system), user: fill(prompt.user) };
  const unused = Object.keys(variables).filter((variable) => !used.has(variable));
  if (unused.length > 0) throw new Error(`prompt ${name}@v${version} has no place for: ${unused.join(", ")}`);
  return rendered;
}
