import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import { organizations } from "@als/db";
import { createOrganization, openSession } from "@als/identity";
import { type Browser, chromium, type Page } from "playwright-core";
import { ensureConsoleBuilt } from "../../../test/support/console-build.ts";
import type { FakeLlmReply, FakeLlmRequest } from "../../../test/support/llm-server.ts";
import { STAGING_QUESTION, scriptedReply, startScriptedLlm } from "../../../test/support/scripted-llm.ts";
import { startTestService, type TestService } from "../../../test/support/service.ts";
import { bearer } from "../../../test/support/tenants.ts";

// The operator console in Debian's chromium, driven by playwright-core, against the real server
// listening on a port (hosted mode: every call needs a credential) with the scripted LLM. The member
// signs in, creates an API key, walks the onboarding to completion while the test acts as the agent
// over REST, approves a playbook, answers a question, reads the evaluation and erases a user.
// Screenshots of every page go to test-artifacts/console/ (gitignored).

const ARTIFACTS = resolve(import.meta.dir, "../../../test-artifacts/console");
const PASSWORD = "console test password 1";
const EMAIL = `owner-${crypto.randomUUID().slice(0, 8)}@console.example`;

let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
let svc: TestService;
let browser: Browser;
let page: Page;
let origin: string;
let sessionToken: string;
let apiKey: string;

beforeAll(async () => {
  ensureConsoleBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  scripted = await startScriptedLlm(aggregateOrScripted);
  svc = await startTestService({ llm: scripted.llm, authMode: "required" });
  const { orgId, owner } = await createOrganization(svc.deps, { name: "Console Co", ownerEmail: EMAIL, ownerPassword: PASSWORD, emailVerified: true });
  await organizations.setGovernanceEntitlement(svc.deps.db, orgId, true);
  sessionToken = (await openSession(svc.deps, owner, "login")).token;
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${svc.app.server!.port}`;
  // Debian's chromium (scripts/install-chromium.sh); tests run as root, where its sandbox cannot start.
  const executablePath = Bun.which("chromium");
  if (!executablePath) throw new Error("chromium is not installed: run bash scripts/install-chromium.sh");
  // A container's /dev/shm may be too small for the renderer: shared memory goes to /tmp instead.
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Every wait of the browser is bounded.
  page.setDefaultTimeout(15_000);
});
afterAll(async () => {
  await browser?.close();
  await svc?.app.stop();
  await svc?.close();
  scripted?.server.close();
});

/** The scripted model, which also summarises a cluster of user playbooks into one agent playbook. */
function aggregateOrScripted(request: FakeLlmRequest): FakeLlmReply {
  if (request.schemaName !== "playbook_aggregation") return scriptedReply(request);
  const size = (request.user.split("Cluster of user playbooks:")[1]?.match(/^\d+\. trigger:/gm) ?? []).length;
  return {
    json: {
      restates_approved: false,
      playbook_name: "Vegan dinners",
      trigger: "The user asks what to cook",
      content: "Suggest vegan dishes",
      rationale: `Seen in ${size} user playbooks`,
      tags: ["recipes"],
    },
  };
}

/** A REST call over real HTTP, as an agent (API key) or a member's script (session token) makes it. */
async function rest(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...bearer(token), ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** How far the page is wider than the window, in pixels (run in the browser, which has the DOM). */
const OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth";

/** axe-core, run inside the page: WCAG 2 A and AA rules (labels, names, contrast, structure). */
const AXE = await Bun.file(resolve(import.meta.dir, "../../../node_modules/axe-core/axe.min.js")).text();

/** A screenshot of the page as it is, after checking it has no WCAG A/AA violation axe can find. */
async function shot(name: string) {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>(
    "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] })",
  );
  expect(violations.map((each) => `${each.id} (${each.help}): ${each.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);
  await page.screenshot({ path: resolve(ARTIFACTS, `${name}.png`), fullPage: true });
}
const open = (pageId: string) => page.getByRole("link", { name: pageId, exact: true }).click();
const stepDone = (id: string) => page.locator(`li.step.complete[data-step="${id}"]`).waitFor();
const checkProgress = () => page.getByRole("button", { name: "Check progress" }).click();

describe("the operator console", () => {
  test("a wrong password is refused with the service's message; the right one signs in", async () => {
    await page.goto(`${origin}/console/`);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("wrong email or password");
    await shot("01-sign-in");
    await page.getByLabel("Password").fill(PASSWORD);
    // Enter submits: the form works from the keyboard.
    await page.getByLabel("Password").press("Enter");
    await page.getByRole("heading", { name: "Onboarding" }).waitFor();
    expect(await page.getByLabel("Project").inputValue()).toBe("default");
  });

  test("onboarding starts with the API key step ready; the key is created on its page and shown once", async () => {
    await page.getByRole("button", { name: "Start the walkthrough" }).click();
    await page.locator('li.step.ready[data-step="create_api_key"]').waitFor();
    expect(await page.getByRole("status").first().textContent()).toContain("0 of 8 steps complete");
    await shot("02-onboarding-start");
    await page.getByRole("link", { name: "Create a key on the API keys page" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByLabel("Name").fill("support agent");
    await page.getByRole("button", { name: "Create key for default" }).click();
    apiKey = await page.getByTestId("new-key").inputValue();
    expect(apiKey.length).toBeGreaterThan(20);
    await page.getByRole("button", { name: /Revoke key support agent/ }).waitFor();
    await shot("03-api-keys-created");
    // The key works for the agent, and the console never shows its value again.
    expect((await rest("GET", "/api/whoami", apiKey)).status).toBe(200);
    await open("Onboarding");
    await stepDone("create_api_key");
    await open("API keys");
    await page.getByRole("button", { name: /Revoke key support agent/ }).waitFor();
    expect(await page.content()).not.toContain(apiKey);
  });

  test("a key name the service refuses shows its message naming the field, and creates nothing", async () => {
    const before = (await rest("GET", "/api/account/api-keys", sessionToken)).body.api_keys.length;
    await page.getByLabel("Name").fill("   ");
    await page.getByRole("button", { name: "Create key for default" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("name: must not be empty");
    expect((await rest("GET", "/api/account/api-keys", sessionToken)).body.api_keys.length).toBe(before);
  });

  test("revoking a key asks once more, then the key stops working at once", async () => {
    await page.getByLabel("Name").fill("old agent");
    await page.getByRole("button", { name: "Create key for default" }).click();
    const oldKey = await page.getByTestId("new-key").inputValue();
    expect(oldKey).not.toBe(apiKey);
    await page.getByRole("button", { name: /Revoke key old agent/ }).click();
    await page.getByRole("button", { name: "Confirm: revoke old agent" }).click();
    await page.getByRole("button", { name: /Revoke key old agent/ }).waitFor({ state: "detached" });
    expect((await rest("GET", "/api/whoami", oldKey)).status).toBe(401);
    expect((await rest("GET", "/api/whoami", apiKey)).status).toBe(200);
  });

  test("the walkthrough completes from the agent's real calls and the member's clicks", async () => {
    await open("Onboarding");
    const run = (await rest("GET", "/api/projects/default/onboarding", sessionToken)).body.run;
    // The console shows the agent's call with this run's ids; copying it is no progress by itself.
    const snippet = await page.locator('[data-step="publish_conversation"] .snippet').textContent();
    expect(snippet).toContain(`curl -X POST ${origin}/api/publish_interaction`);
    expect(snippet).toContain(`"user_id":"${run.user_id}","session_id":"${run.session_id}","source":"service-onboarding"`);
    // The agent publishes the sample with the key; the scripted model extracts a profile and a playbook.
    const published = await rest("POST", "/api/publish_interaction", apiKey, {
      user_id: run.user_id,
      session_id: run.session_id,
      source: run.source,
      force_extraction: true,
      interaction_data_list: [
        { role: "User", content: "I am vegan and I own a golden retriever. What should I cook tonight?" },
        { role: "Agent", content: "Try roast chicken.", expert_content: "Try a chickpea curry, fully vegan." },
      ],
    });
    expect(published.status).toBe(200);
    await svc.learningIdle();
    await checkProgress();
    await stepDone("publish_conversation");
    await stepDone("extract_learnings");
    // The preview of the followed conversation, as stored.
    await page.locator(".conversation", { hasText: "User: I am vegan and I own a golden retriever" }).waitFor();
    await page
      .getByRole("button", { name: /Mark “profile” as viewed/ })
      .first()
      .click();
    await stepDone("view_learning");
    // A search with the API key that serves a learning of the sample.
    expect((await rest("POST", "/api/search", apiKey, { query: "what diet does the user follow", user_id: run.user_id })).status).toBe(200);
    await checkProgress();
    await stepDone("retrieve_learning");
    // The session goes quiet and is graded.
    svc.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
    svc.reconciler.poke();
    await svc.learningIdle();
    await checkProgress();
    await stepDone("grade_session");
    await page.getByRole("button", { name: "Mark the evaluation as viewed" }).click();
    await stepDone("view_evaluation");
    await page.getByRole("button", { name: "Defer the experiment" }).click();
    await stepDone("set_up_experiment");
    await page.getByText("8 of 8 steps complete").waitFor();
    await shot("04-onboarding-complete");
    const status = (await rest("GET", "/api/projects/default/onboarding", sessionToken)).body;
    expect(status.steps.every((step: { complete: boolean }) => step.complete)).toBe(true);
  });

  test("the learnings browser lists, searches and filters, and shows an agent playbook's lineage", async () => {
    // Two users of a chef agent each teach it the same playbook; aggregation makes one agent playbook of them.
    for (const userId of ["cook-1", "cook-2"]) {
      const published = await rest("POST", "/api/publish_interaction", apiKey, {
        user_id: userId,
        session_id: `${userId}-s`,
        agent_version: "chef-v1",
        force_extraction: true,
        interaction_data_list: [
          { role: "User", content: "What should I cook tonight?" },
          { role: "Agent", content: "Try roast chicken.", expert_content: "Try a chickpea curry, fully vegan." },
        ],
      });
      expect(published.status).toBe(200);
    }
    await svc.learningIdle();
    const aggregated = await rest("POST", "/api/run_playbook_aggregation", apiKey, { agent_version: "chef-v1" });
    expect(aggregated.body).toMatchObject({ success: true, operation: { status: "succeeded", result: { agent_playbooks_created: 1 } } });
    await open("Learnings");
    await page.getByText("Is vegan").waitFor();
    await page.getByLabel("Search").fill("retriever");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Owns a golden retriever named Biscuit").waitFor();
    expect(await page.getByText("Is vegan").count()).toBe(0);
    await shot("05-learnings-profiles");
    await page.getByRole("tab", { name: "User playbooks" }).click();
    await page.getByLabel("Search").fill("");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("3 found.").waitFor();
    await page.getByLabel("User ID").fill("cook-1");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("1 found.").waitFor();
    await page.getByText("Offer only vegan recipes and say they are vegan").waitFor();
    await page.getByLabel("Tags (any of, comma-separated)").fill("travel, pets");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Nothing found.").waitFor();
    await page.getByLabel("Tags (any of, comma-separated)").fill("travel, recipes");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Offer only vegan recipes and say they are vegan").waitFor();
    await page.getByLabel("Tags (any of, comma-separated)").fill("");
    await page.getByRole("tab", { name: "Agent playbooks" }).click();
    await page.getByLabel("Approval").selectOption("PENDING");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Made from 2 user playbooks").click();
    await page.getByText(/\(user cook-1, request .*\): Offer only vegan recipes/).waitFor();
    await page.getByText(/\(user cook-2, request .*\): Offer only vegan recipes/).waitFor();
    await shot("06-learnings-agent-lineage");
  });

  test("the approval queue edits and approves a playbook, which agents then retrieve", async () => {
    await open("Approval queue");
    await page.getByRole("heading", { name: /Vegan dinners/ }).waitFor();
    await page.getByText("Seen in 2 user playbooks").waitFor();
    await shot("07-approval-queue");
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Do").fill("Suggest vegan dishes and say they are vegan");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Suggest vegan dishes and say they are vegan").waitFor();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Nothing found.").waitFor();
    const approved = (await rest("POST", "/api/get_agent_playbooks", apiKey, {})).body.agent_playbooks;
    expect(approved.map((each: { content: string; playbook_status: string }) => [each.content, each.playbook_status])).toEqual([
      ["Suggest vegan dishes and say they are vegan", "approved"],
    ]);
  });

  test("the questions inbox answers a question, and the learning goes on with the answer", async () => {
    expect((await rest("POST", "/api/update_config", apiKey, { pending_tool_call_config: { enabled: true } })).status).toBe(200);
    const asks = async (userId: string) => {
      const publish = { user_id: userId, session_id: `${userId}-s`, force_extraction: true };
      const content = "Please always use the staging account when you deploy for me.";
      expect((await rest("POST", "/api/publish_interaction", apiKey, { ...publish, interaction_data_list: [{ role: "User", content }] })).status).toBe(200);
      await svc.learningIdle();
    };
    await asks("ana");
    await asks("bo");
    await open("Questions");
    await page.getByText(STAGING_QUESTION).first().waitFor();
    expect(await page.getByRole("heading", { name: STAGING_QUESTION }).count()).toBe(2);
    await shot("08-questions-inbox");
    const ana = page.locator("article", { hasText: "About user ana" });
    await ana.getByLabel("Your answer").fill("yes");
    await ana.getByRole("button", { name: "Answer" }).click();
    const bo = page.locator("article", { hasText: "About user bo" });
    await bo.getByRole("button", { name: "Not applicable" }).click();
    await page.getByText("Nothing found.").waitFor();
    await svc.learningIdle();
    const profiles = (await rest("POST", "/api/get_profiles", apiKey, { user_id: "ana" })).body.user_profiles;
    expect(profiles.map((each: { content: string }) => each.content)).toContain("Prefers the staging account for deployments");
    await page.getByLabel("Show").selectOption("resolved");
    await page.locator("article", { hasText: "About user bo" }).getByText("Marked not applicable.").waitFor();
    await page.locator("article", { hasText: "About user ana" }).getByText("Answered: yes").waitFor();
  });

  test("the evaluation overview charts three more days of graded sessions and shows the experiment's results", async () => {
    expect((await rest("POST", "/api/retrieval_experiments", apiKey, { experiment_id: "exp-1", holdout_percentage: 50 })).status).toBe(200);
    // Each day: a session that succeeds, one that fails (not on day 2), one whose turns carry shadow answers.
    const publish = async (userId: string, interaction_data_list: object[]) =>
      expect((await rest("POST", "/api/publish_interaction", apiKey, { user_id: userId, session_id: `${userId}-s`, interaction_data_list })).status).toBe(200);
    for (const day of [1, 2, 3]) {
      svc.clock.now += 86_400;
      await publish(`happy-${day}`, [
        { role: "User", content: "Track my order" },
        { role: "Agent", content: "It ships today." },
      ]);
      if (day !== 2) {
        await publish(`unhappy-${day}`, [
          { role: "User", content: "Track my order" },
          { role: "Agent", content: "It shipped last year." },
          { role: "User", content: "That is wrong." },
        ]);
      }
      await publish(`shadow-${day}`, [
        { role: "User", content: "Compare these" },
        { role: "Agent", content: "Answer A", shadow_content: day === 3 ? "Answer B [better]" : "Answer B" },
        { role: "Agent", content: "Same", shadow_content: "Same" },
      ]);
    }
    svc.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
    svc.reconciler.poke();
    await svc.learningIdle();
    // The browser's today is the service's: the window it asks for ends with the service's clock.
    await page.clock.setFixedTime(svc.clock.now * 1000);
    await open("Evaluation");
    await page.getByText("Graded sessions", { exact: true }).waitFor();
    // The sample session, the two cooks', ana's and bo's (graded once quiet too), and the eight of these three days.
    await page.locator(".tile", { hasText: "Graded sessions" }).locator("strong", { hasText: /^13$/ }).waitFor();
    // recharts draws the three charts as SVG once the data is in.
    await page.locator(".chart svg.recharts-surface").nth(2).waitFor();
    await page.getByText("Window: 6 judged turns").waitFor();
    await page.getByText("Verdict: insufficient data").waitFor();
    await shot("09-evaluation-overview");
  });

  test("the project switch shows another project's data; that project has no walkthrough", async () => {
    expect((await rest("POST", "/api/account/projects", sessionToken, { project_id: "staging", name: "Staging" })).status).toBe(201);
    await page.reload();
    await page.getByLabel("Project").selectOption("staging");
    await open("Onboarding");
    await page.getByText("The walkthrough belongs to the organisation's default project").waitFor();
    await open("Learnings");
    await page.getByText("Nothing found.").waitFor();
    await page.getByLabel("Project").selectOption("default");
  });

  test("erasing a user needs the id typed twice and the password, and completes", async () => {
    await open("Erase a user");
    await page.getByLabel("User ID to erase").fill("ana");
    const erase = page.getByRole("button", { name: "Erase ana from default" });
    expect(await erase.isDisabled()).toBe(true);
    await page.getByLabel("Type the user ID again to confirm").fill("ana");
    await page.getByLabel("Your password (opens a short governance session)").fill(PASSWORD);
    await erase.click();
    await page.getByText(/: complete/).waitFor();
    await shot("10-erase-complete");
    expect((await rest("POST", "/api/get_profiles", apiKey, { user_id: "ana" })).body.user_profiles).toEqual([]);
  });

  test("at phone width the navigation and pages fit the screen; the keyboard reaches the skip link first and follows page changes", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open("Onboarding");
    await page.getByText("8 of 8 steps complete").waitFor();
    expect(await page.evaluate<number>(OVERFLOW)).toBeLessThanOrEqual(0);
    await shot("11-phone-onboarding");
    await open("Evaluation");
    await page.locator(".chart svg.recharts-surface").first().waitFor();
    expect(await page.evaluate<number>(OVERFLOW)).toBeLessThanOrEqual(0);
    await shot("12-phone-evaluation");
    // Every other page fits the phone's width too, with what it shows now.
    for (const [link, heading] of [
      ["Learnings", "Learnings"],
      ["Approval queue", "Approval queue"],
      ["Questions", "Questions"],
      ["API keys", "API keys"],
      ["Erase a user", "Erase a user"],
    ] as const) {
      await open(link);
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await page.locator("main output, main form").first().waitFor();
      expect({ link, overflow: await page.evaluate<number>(OVERFLOW) }).toEqual({ link, overflow: 0 });
    }
    await shot("13-phone-erase");
    await open("Evaluation");
    await page.reload();
    await page.getByRole("heading", { name: "Evaluation" }).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement.textContent")).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate<string>("document.activeElement.id")).toBe("main");
    expect(page.url()).toEndWith("#/evaluation");
    // A page chosen from the keyboard takes the focus to its content.
    await page.getByRole("link", { name: "Questions", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Questions" }).waitFor();
    expect(await page.evaluate<string>("document.activeElement.id")).toBe("main");
  });

  test("a dismissed checklist folds away, its progress kept", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await open("Onboarding");
    await page.getByRole("button", { name: "Dismiss the checklist" }).click();
    await page.getByText("8 of 8 steps complete — the core loop works (checklist dismissed).").waitFor();
    expect(await page.locator("li.step").first().isVisible()).toBe(false);
    expect((await rest("GET", "/api/projects/default/onboarding", sessionToken)).body.run.dismissed).toBe(true);
  });

  test("a session ended elsewhere sends the console back to sign-in, saying so", async () => {
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('als-console-session')).token");
    expect((await rest("POST", "/api/account/logout", token)).status).toBe(200);
    // The member comes back to the tab later: the console's next read is refused.
    await page.reload();
    await page.getByText("Your session ended: sign in again.").waitFor();
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back on the page the member was on.
    await page.getByRole("heading", { name: "Onboarding" }).waitFor();
  });

  test("signing out ends the session; another organisation's member who signs in next sees none of this one's data", async () => {
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('als-console-session')).token");
    await open("Learnings");
    await page.getByText("Is vegan").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the console" }).waitFor();
    expect((await rest("GET", "/api/account/me", token)).status).toBe(401);
    const otherEmail = `owner-${crypto.randomUUID().slice(0, 8)}@other.example`;
    await createOrganization(svc.deps, { name: "Other Co", ownerEmail: otherEmail, ownerPassword: PASSWORD, emailVerified: true });
    await page.getByLabel("Email").fill(otherEmail);
    await page.getByLabel("Password").fill(PASSWORD);
    // Watch every change of the page: the first organisation's profile must never be drawn, not even
    // for the moment before a fresh read replaces it.
    await page.evaluate(
      "window.sawEarlierData = false; new MutationObserver(() => { if (document.body.textContent.includes('Is vegan')) window.sawEarlierData = true; }).observe(document.body, { childList: true, subtree: true, characterData: true })",
    );
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText(`${otherEmail} · Other Co`).waitFor();
    await page.getByText("Nothing found.").waitFor();
    expect(await page.evaluate<boolean>("window.sawEarlierData")).toBe(false);
  });
});
