import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureConsoleBuilt } from "@als/test-support/console-build.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { randomPort, spawnServer, stopProcess, until, untilHealthy } from "@als/test-support/server-process.ts";
import type { Browser, Page } from "playwright-core";
import { checkedShot, launchBrowser, OVERFLOW } from "./browser.ts";

// The README's quick start, as a new user walks it: the server runs as `scripts/serve` runs it (its
// own process, embedded, local mode, no account anywhere), an agent publishes with curl, and the
// console opened in a browser on the same machine shows what was learned, without signing in.

let llm: Awaited<ReturnType<typeof startScriptedLlm>>["server"];
let server: ReturnType<typeof spawnServer>;
/** The server's log as written so far: without SMTP, account mails are in it. */
let log = "";
let dataDir: string;
let browser: Browser;
let page: Page;
let origin: string;

beforeAll(async () => {
  ensureConsoleBuilt();
  llm = (await startScriptedLlm()).server;
  dataDir = mkdtempSync(join(tmpdir(), "als-quick-start-"));
  const port = randomPort();
  origin = `http://127.0.0.1:${port}`;
  server = spawnServer(
    port,
    {
      DATA_DIR: dataDir,
      LLM_PROVIDER: "openai-compatible",
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: "scripted-model",
      LLM_CONTEXT_WINDOW_TOKENS: "128000",
      LOG_LEVEL: "info",
    },
    { log: "pipe" },
  );
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of server.stderr as ReadableStream<Uint8Array>) log += decoder.decode(chunk, { stream: true });
  })();
  // A server on a fresh data directory first creates its database (from the kept template, or by
  // PGlite's initdb and every migration when none is kept): 4 to 12 s on an idle machine, several
  // times that beside the other browser suites.
  await untilHealthy(origin);
  ({ browser, page } = await launchBrowser());
}, 180_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stopProcess(server, "SIGTERM");
  await llm?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The README's publish, with curl itself: no credential, as a local server takes it. */
function curlPublish(body: unknown): unknown {
  const curl = Bun.spawnSync([
    "curl",
    "-sS",
    "--fail-with-body",
    `${origin}/api/publish_interaction`,
    "-H",
    "content-type: application/json",
    "-d",
    JSON.stringify(body),
  ]);
  expect(curl.exitCode).toBe(0);
  return JSON.parse(curl.stdout.toString());
}

describe("the quick start, from the console's side", () => {
  test("serve → publish with curl → open the console on this machine → the learning is there, without signing in", async () => {
    expect(
      curlPublish({
        user_id: "ana",
        session_id: "first-chat",
        force_extraction: true,
        interaction_data_list: [{ role: "User", content: "I am vegan and I own a golden retriever. What should I cook tonight?" }],
      }),
    ).toMatchObject({ success: true });
    await page.goto(`${origin}/console/`);
    await page.getByRole("heading", { name: "Onboarding" }).waitFor();
    await page.locator(".who", { hasText: "Local operator · Local" }).waitFor();
    await page.getByRole("link", { name: "Learnings", exact: true }).click();
    // Extraction runs in the background: the page shows the profiles once they are learned.
    await until(async () => {
      await page.getByRole("button", { name: "Apply" }).click();
      return (await page.getByText("Owns a golden retriever named Biscuit").count()) > 0 ? true : undefined;
    }, 30_000);
    await page.getByText("Is vegan").waitFor();
    await checkedShot(page, "50-local-console-learnings");
  });

  test("the local operator's key works for agents; signing out stays out until asked, and the sign-in page says what to do without an account", async () => {
    await page.getByRole("link", { name: "API keys", exact: true }).click();
    await page.getByLabel("Name").fill("local agent");
    await page.getByRole("button", { name: "Create key for default" }).click();
    const key = await page.getByTestId("new-key").inputValue();
    const whoami = await fetch(`${origin}/api/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await whoami.json()) as { org_id: string }).org_id).toBe("local");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    // A reload does not sign the operator back in behind their back.
    await page.reload();
    await page.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    await page.getByRole("heading", { name: "No account?" }).waitFor();
    await checkedShot(page, "51-local-signed-out");
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>(OVERFLOW)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole("button", { name: "Open as the local operator" }).click();
    await page.locator(".who", { hasText: "Local operator · Local" }).waitFor();
  });

  test("registration from the sign-in page: a new organisation, its verification link in the server's log", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    const form = page.getByRole("form", { name: "Create an account" });
    await form.getByLabel("Organisation name").fill("Ana's team");
    await form.getByLabel("Your email").fill("ana@team.example");
    await form.getByLabel("New password").fill("short");
    await form.getByRole("button", { name: "Create account" }).click();
    // The service's own message names the field.
    expect(await form.getByRole("alert").textContent()).toContain("password");
    await form.getByLabel("New password").fill("a long enough password 1");
    await form.getByRole("button", { name: "Create account" }).click();
    await page.getByText("A link to verify ana@team.example is on its way").waitFor();
    await checkedShot(page, "52-registered");
    // Without SMTP the link is only in the log: before it is opened, signing in says to open it.
    await page.getByLabel("Email", { exact: true }).fill("ana@team.example");
    await page.getByLabel("Password", { exact: true }).fill("a long enough password 1");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("form", { name: "Sign in" }).getByRole("alert").textContent()).toContain("verification mail");
    // The link, from the line of the log that names the address, opened in the browser.
    const link = await until(async () => {
      const line = log.split("\n").find((each) => each.includes("mail not sent") && each.includes("ana@team.example"));
      return line ? /https?:\/\/\S+\/api\/account\/verify-email\?token=[\w-]+/.exec(JSON.parse(line).text)?.[0] : undefined;
    }, 5_000);
    const verification = await page.request.get(link);
    expect(verification.status()).toBe(200);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(".who", { hasText: "ana@team.example · Ana's team" }).waitFor();
  });
});
