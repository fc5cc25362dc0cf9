import { expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Where the console's tests put their screenshots (gitignored). */
export const ARTIFACTS = resolve(import.meta.dir, "../../../test-artifacts/console");

/** How far the page is wider than the window, in pixels (run in the browser, which has the DOM). */
export const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

/** axe-core, run inside the page: WCAG 2 A and AA rules (labels, names, contrast, structure). */
const AXE = await Bun.file(resolve(import.meta.dir, "../../../node_modules/axe-core/axe.min.js")).text();

/** Debian's chromium (scripts/install-chromium.sh) with one page whose every wait is bounded. */
export async function launchBrowser(): Promise<{ browser: Browser; page: Page }> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const executablePath = Bun.which("chromium");
  if (!executablePath) throw new Error("chromium is not installed: run bash scripts/install-chromium.sh");
  // Tests run as root, where its sandbox cannot start; a container's /dev/shm may be too small for
  // the renderer: shared memory goes to /tmp instead.
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  return { browser, page };
}

/** A screenshot of the page as it is, after checking it has no WCAG A/AA violation axe can find. */
export async function checkedShot(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>(
    "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] })",
  );
  expect(violations.map((each) => `${each.id} (${each.help}): ${each.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);
  await page.screenshot({ path: resolve(ARTIFACTS, `${name}.png`), fullPage: true });
}
