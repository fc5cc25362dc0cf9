import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/**
 * Process state (caches, slots, queues, counters) lives in the services a composition root builds
 * and passes on (ProcessServices, CODE_STYLE.md "Where process state lives"), never in a module: a
 * module's state is shared by everything that imports it, two apps over one database in a test
 * included, and nobody can see or replace it. This check reads every source file of the apps, the
 * packages and the workflows and finds module-level `let`/`var` and module-level mutable collections
 * (`new Map`, `Set`, `WeakMap`, `WeakSet`, `Array` not typed Readonly...).
 */
const ROOT = join(import.meta.dir, "../../..");

/** The composition roots: a process's entry point holds what it built for its own lifetime. */
const COMPOSITION_ROOTS = new Set(["apps/server/src/service-thread.ts", "apps/mcp/src/main.ts", "apps/worker/src/main.ts"]);

const MUTABLE_COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet", "Array"]);

function sourceFiles(dir: string): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name) ? [path] : [];
  });
}

/** A line that may declare module state: only the files with one are parsed, which keeps the check fast. */
const CANDIDATE = /^(export )?(let |var |const .*\bnew )/m;

/** "file name" of every module-level variable or mutable collection of `file`. */
function moduleState(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  if (!CANDIDATE.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      const readonlyType = /^Readonly/.test(declaration.type?.getText(source) ?? "");
      const collection = init && ts.isNewExpression(init) && ts.isIdentifier(init.expression) && MUTABLE_COLLECTIONS.has(init.expression.text);
      if (!constant || (collection && !readonlyType)) found.push(`${file} ${declaration.name.getText(source)}`);
    }
  }
  return found;
}

const groups = ["apps", "packages"].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name, "src")));
const files = [...groups, "workflows/src"].flatMap(sourceFiles).map((file) => relative(".", file));

test("no module outside the composition roots keeps process state", () => {
  expect(files.filter((file) => !COMPOSITION_ROOTS.has(file)).flatMap(moduleState)).toEqual([]);
});

test("the check sees module state where there is some", () => {
  expect(files.length).toBeGreaterThan(300);
  expect(moduleState("apps/server/src/service-thread.ts").length).toBeGreaterThan(0);
});
