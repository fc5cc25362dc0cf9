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

export type RenderPrompt = (name: string, variables: Record<string, string>, version?: number) => RenderedPrompt;

interface PromptText {
  system: string;
  user: string;
}

/**
 * Every prompt under `dir` (`<name>/v<N>.md`), read and parsed at once: a prompt file without both
 * sections fails here, when the process starts, rather than at the first call that needs it.
 */
export function readPrompts(dir: string): RenderPrompt {
  const versions: ReadonlyMap<string, ReadonlyMap<number, PromptText>> = new Map(
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => [entry.name, readVersions(dir, entry.name)]),
  );
  return (name, variables, version) => {
    const all = versions.get(name);
    if (!all || all.size === 0) throw new Error(`no versions of prompt ${name}`);
    const chosen = version ?? Math.max(...all.keys());
    const prompt = all.get(chosen);
    if (!prompt) throw new Error(`no version ${chosen} of prompt ${name}`);
    return fill(`${name}@v${chosen}`, prompt, variables);
  };
}

function readVersions(dir: string, name: string): ReadonlyMap<number, PromptText> {
  return new Map(
    readdirSync(`${dir}/${name}`).flatMap((file) => {
      const version = /^v(\d+)\.md$/.exec(file)?.[1];
      if (version === undefined) return [];
      const text = readFileSync(`${dir}/${name}/${file}`, "utf8");
      const match = /^# system\s*\n([\s\S]*?)^# user\s*\n([\s\S]*)$/m.exec(text);
      if (!match) throw new Error(`prompt ${name}@v${version} needs a '# system' and a '# user' section`);
      return [[Number(version), { system: match[1]!.trim(), user: match[2]!.trim() }] as const];
    }),
  );
}

function fill(id: string, prompt: PromptText, variables: Record<string, string>): RenderedPrompt {
  const used = new Set<string>();
  const filled = (template: string) =>
    template.replace(/\{\{(\w+)\}\}/g, (_, variable: string) => {
      const value = variables[variable];
      if (value === undefined) throw new Error(`prompt ${id} needs the variable '${variable}'`);
      used.add(variable);
      return value;
    });
  const rendered = { id, system: filled(prompt.system), user: filled(prompt.user) };
  const unused = Object.keys(variables).filter((variable) => !used.has(variable));
  if (unused.length > 0) throw new Error(`prompt ${id} has no place for: ${unused.join(", ")}`);
  return rendered;
}

/** The product's prompts, read when this module loads. */
export const renderPrompt: RenderPrompt = readPrompts(PROMPTS_DIR);
