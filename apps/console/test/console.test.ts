import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import { organizations } from "@als/db";
import { createOrganization, openSession } from "@als/identity";
import { ensureConsoleBuilt } from "@als/test-support/console-build.ts";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { STAGING_QUESTION, scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer } from "@als/test-support/tenants.ts";
import type { Browser, Page } from "playwright-core";
import { checkedShot, launchBrowser, OVERFLOW } from "./browser.ts";

// The operator console in Debian's chromium, driven by playwright-core, against the real server
// listening on a port (hosted mode: every call needs a credential) with the scripted LLM. The member
// signs in, creates an API key, walks the onboarding to completion while the test acts as the agent
// over REST, approves a playbook, answers a question, reads the evaluation and erases a user.
// Screenshots of every page go to test-artifacts/console/ (gitignored).

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
  scripted = await startScriptedLlm(aggregateOrScripted);
  svc = await startTestService({ llm: scripted.llm, authMode: "required" });
  const { orgId, owner } = await createOrganization(svc.deps, { name: "Console Co", ownerEmail: EMAIL, ownerPassword: PASSWORD, emailVerified: true });
  await organizations.setGovernanceEntitlement(svc.deps.db, orgId, true);
  sessionToken = (await openSession(svc.deps, owner, "login")).token;
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${svc.app.server!.port}`;
  ({ browser, page } = await launchBrowser());
});
afterAll(async () => {
  await browser?.close();
  await svc?.app.stop();
  await svc?.close();
  // Awaited: the next file's servers start in this process right after, and its deterministic LLM
  // server twice found its port refusing connections while this one's close was still under way.
  await scripted?.server.close();
});

/** While set, the provider refuses our credentials, as a revoked key makes it do: learning stalls. */
let providerRefuses = false;

/** The scripted model, which also summarises a cluster of user playbooks into one agent playbook. */
function aggregateOrScripted(request: FakeLlmRequest): FakeLlmReply {
  if (providerRefuses) return { status: 401, error: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided" } };
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

const shot = (name: string) => checkedShot(page, name);
const open = (pageId: string) => page.getByRole("link", { name: pageId, exact: true }).click();
const stepDone = (id: string) => page.locator(`li.step.complete[data-step="${id}"]`).waitFor();
const checkProgress = () => page.getByRole("button", { name: "Check progress" }).click();

describe("the operator console", () => {
  test("a wrong password is refused with the service's message; the right one signs in", async () => {
    await page.goto(`${origin}/console/`);
    await page.getByLabel("Email", { exact: true }).fill(EMAIL);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("wrong email or password");
    await shot("01-sign-in");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    // Enter submits: the form works from the keyboard.
    await page.getByLabel("Password", { exact: true }).press("Enter");
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
    // The row leaves the table only once the service has revoked the key and the list is read again.
    await page.getByRole("cell", { name: "old agent", exact: true }).waitFor({ state: "detached" });
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

  test("the conversations page lists the project's sessions and a session's requests, turns, learning status and learnings", async () => {
    await open("Conversations");
    await page.getByRole("button", { name: "cook-2-s", exact: true }).waitFor();
    await shot("14-conversations-project");
    await page.getByRole("button", { name: "cook-1-s", exact: true }).click();
    await page.getByRole("heading", { name: /Session cook-1-s of user cook-1/ }).waitFor();
    const request = page.locator("section.request").first();
    await request.getByText("User: What should I cook tonight?").waitFor();
    await request.locator(".badge", { hasText: /^done$/ }).waitFor();
    await request.getByText("Learnings from this request").click();
    await shot("15-conversations-session");
    // A learning the request produced links to the learnings page, showing that user's playbooks.
    await request.getByRole("link", { name: /^User playbook #\d+$/ }).click();
    await page.getByRole("heading", { name: "Learnings" }).waitFor();
    expect(await page.getByRole("tab", { name: "User playbooks" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.getByLabel("User ID").inputValue()).toBe("cook-1");
    await page.getByText("1 found.").waitFor();
    await page.getByText("Offer only vegan recipes and say they are vegan").waitFor();
  });

  test("the project's sessions and a user's requests are paged: older ones load on demand", async () => {
    // A first request of one turn, then 20 of 25 turns: the newest 500 turns of the project are all of pager-s.
    for (let index = 0; index < 21; index++) {
      const published = await rest("POST", "/api/publish_interaction", apiKey, {
        user_id: "pager",
        session_id: "pager-s",
        interaction_data_list: Array.from({ length: index === 0 ? 1 : 25 }, (_, turn) => ({
          role: turn % 2 === 0 ? "User" : "Agent",
          content: `pager request ${index} turn ${turn}`,
        })),
      });
      expect(published.status).toBe(200);
    }
    await open("Conversations");
    await page.getByRole("button", { name: "pager-s", exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "cook-1-s", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Show older sessions" }).click();
    await page.getByRole("button", { name: "cook-1-s", exact: true }).waitFor();
    await shot("20-conversations-older-sessions");
    await page.getByRole("button", { name: "pager-s", exact: true }).click();
    const requests = page.locator("section.request");
    await page.getByText("pager request 20 turn 0").waitFor();
    expect(await requests.count()).toBe(20);
    await page.getByRole("button", { name: "Older requests" }).click();
    await page.getByText("pager request 0 turn 0").waitFor();
    expect(await requests.count()).toBe(1);
    expect(await page.getByRole("button", { name: "Older requests" }).count()).toBe(0);
    await page.getByRole("button", { name: "Newer requests" }).click();
    await page.getByText("pager request 20 turn 0").waitFor();
  });

  test("a request held for its input budget shows why on the conversations page; the status page counts it; its windows are recovered", async () => {
    const words = (count: number, seed: string) => Array.from({ length: count }, (_, i) => `${seed}${i % 97}`).join(" ");
    const publish = async (content: string[]) => {
      const turns = content.map((each) => ({ role: "User", content: each }));
      const published = await rest("POST", "/api/publish_interaction", apiKey, {
        user_id: "held-user",
        session_id: "held-s",
        force_extraction: true,
        interaction_data_list: turns,
      });
      expect(published.status).toBe(200);
      await svc.learningIdle();
      return published.body.request_id as string;
    };
    // The fixed part of the user's profile extraction prompt (no transcript, nothing learned yet), as
    // the model received it: a budget a little over it cannot take even the cut of a very long last
    // turn, so that window is held.
    await publish(["held-user: hello there."]);
    const prompt = scripted.server.requests.findLast((request) => request.schemaName === "profile_extraction" && request.user.includes("held-user"))!;
    const fixed =
      scripted.llm.inputTokens.count(prompt.system) +
      scripted.llm.inputTokens.count(prompt.user.replace(/<transcript>[\s\S]*<\/transcript>/, "<transcript>\n</transcript>"));
    const budget = (await rest("GET", "/api/get_config", apiKey)).body.learning_input_budget_tokens;
    expect((await rest("POST", "/api/update_config", apiKey, { learning_input_budget_tokens: fixed + 300 })).status).toBe(200);
    const held = await publish([`held-user: ${words(20_000, "z")}`, `held-user: ${words(600, "y")}`]);
    expect((await rest("POST", "/api/update_config", apiKey, { learning_input_budget_tokens: budget })).status).toBe(200);
    const later = await publish(["held-user: I am in Lisbon this week."]);
    await open("Conversations");
    await page.getByLabel("User ID (empty: the project's recent sessions)").fill("held-user");
    await page.getByRole("button", { name: "Show", exact: true }).click();
    const heldRequest = page.getByRole("region", { name: `Request ${held}` });
    await heldRequest.getByText("held for budget").waitFor();
    await heldRequest.getByText("reason: input_budget_exceeded").waitFor();
    await page
      .getByRole("region", { name: `Request ${later}` })
      .locator(".badge", { hasText: /^pending$/ })
      .waitFor();
    const windows = page.getByRole("region", { name: "Held windows" });
    await windows.getByRole("heading", { name: "User held-user, profile extractor" }).waitFor();
    await windows.getByRole("heading", { name: "User held-user, playbook extractor" }).waitFor();
    await shot("16-conversations-held");
    // The status page counts the held windows and the user waiting behind them, and links back.
    await open("Status");
    await page.locator(".tile", { hasText: "Held windows" }).locator("strong", { hasText: /^2$/ }).waitFor();
    await page.locator(".tile", { hasText: "Users waiting on a held window" }).locator("strong", { hasText: /^1$/ }).waitFor();
    await page.getByRole("link", { name: "Recover held windows on the conversations page" }).click();
    await page.getByLabel("User ID (empty: the project's recent sessions)").fill("held-user");
    await page.getByRole("button", { name: "Show", exact: true }).click();
    // The profile window is retried with the budget it needs, asked once more before it runs.
    const profileWindow = windows.getByRole("article", { name: "User held-user, profile extractor" });
    await profileWindow.getByRole("button", { name: "Retry with this budget" }).click();
    const retry = profileWindow.getByRole("button", { name: /^Confirm: retry the profile window of held-user with \d+ tokens$/ });
    await retry.click();
    await profileWindow.waitFor({ state: "detached" });
    // The playbook window is skipped from the keyboard: the confirmation takes the focus.
    const playbookWindow = windows.getByRole("article", { name: "User held-user, playbook extractor" });
    await playbookWindow.getByRole("button", { name: "Skip (never learn from it)" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate<string>("document.activeElement.textContent")).toBe("Confirm: skip the playbook window of held-user");
    await page.keyboard.press("Enter");
    await windows.waitFor({ state: "detached" });
    await svc.learningIdle();
    expect((await rest("POST", "/api/learning/held_windows", apiKey, {})).body.held_windows).toEqual([]);
    // The URL names the user shown: a reload reads the statuses again, both requests now learned from.
    await page.reload();
    await page
      .getByRole("region", { name: `Request ${held}` })
      .locator(".badge", { hasText: /^done$/ })
      .waitFor();
    await page
      .getByRole("region", { name: `Request ${later}` })
      .locator(".badge", { hasText: /^done$/ })
      .waitFor();
    const profiles = (await rest("POST", "/api/get_profiles", apiKey, { user_id: "held-user" })).body.user_profiles;
    expect(profiles.map((each: { content: string }) => each.content)).toContain("Is in Lisbon this week");
  });

  test("a provider stall shows on the status page and a stalled request's reason on the conversations page; the operator is recorded as told", async () => {
    providerRefuses = true;
    const publish = (override: boolean) =>
      rest("POST", "/api/publish_interaction", apiKey, {
        user_id: "stall-user",
        session_id: "stall-s",
        force_extraction: true,
        override_learning_stall: override,
        interaction_data_list: [{ role: "User", content: "stall-user: I am in Lisbon this week." }],
      });
    const stalled = (await publish(false)).body.request_id;
    await svc.learningIdle();
    await open("Status");
    await page.locator(".tile", { hasText: "Background extraction" }).locator("strong", { hasText: "Paused" }).waitFor();
    await page.getByText(/The LLM provider refused extraction \(auth error\)/).waitFor();
    await page.getByRole("button", { name: "Record the operator as told" }).click();
    await page.getByRole("button", { name: "Confirm: record the operator as told" }).click();
    await page.getByText("The operator was told.").waitFor();
    await shot("17-status-stalled");
    expect((await rest("GET", "/stall_state", apiKey)).body).toMatchObject({ stalled: true, notified_in_cc: true });
    await page.goto(`${origin}/console/#/conversations?user_id=stall-user`);
    const request = page.getByRole("region", { name: `Request ${stalled}` });
    await request.locator(".badge", { hasText: /^failed$/ }).waitFor();
    await request.getByText(/reason: .*learning is stalled/).waitFor();
    // The page says what stalled it and what clears it, beside the failed request.
    await page
      .getByRole("region", { name: "Learning is stalled" })
      .getByText(/The LLM provider refused extraction \(auth error\)/)
      .waitFor();
    await shot("21-conversations-stalled");
    // The provider works again; a publish that overrides the stall clears it.
    providerRefuses = false;
    expect((await publish(true)).status).toBe(200);
    await svc.learningIdle();
    expect((await rest("GET", "/stall_state", apiKey)).body).toMatchObject({ stalled: false });
    await page.reload();
    await request.locator(".badge").waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("region", { name: "Learning is stalled" }).count()).toBe(0);
  });

  test("the status page charts the LLM tokens per day and stage, with the numbers in a table", async () => {
    await open("Status");
    await page.locator(".tile", { hasText: "Background extraction" }).locator("strong", { hasText: "Running" }).waitFor();
    const report = (await rest("POST", "/api/learning/costs", apiKey, { start_time: svc.clock.now - 30 * 86_400, end_time: svc.clock.now + 86_400 })).body;
    const calls = report.costs.reduce((sum: number, row: { calls: number }) => sum + row.calls, 0);
    expect(calls).toBeGreaterThan(0);
    await page
      .locator(".tile", { hasText: "LLM calls" })
      .locator("strong", { hasText: new RegExp(`^${calls}$`) })
      .waitFor();
    await page.locator(".chart svg.recharts-surface").nth(1).waitFor();
    await page.getByText("Costs as a table").click();
    await page.getByRole("cell", { name: "profile extraction" }).first().waitFor();
    await page.getByText(/model whose price is unknown/).waitFor();
    await shot("18-status-costs");
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
      ["Conversations", "Conversations"],
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
    await open("Status");
    await page.locator(".chart svg.recharts-surface").first().waitFor();
    expect(await page.evaluate<number>(OVERFLOW)).toBeLessThanOrEqual(0);
    await shot("19-phone-status");
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
    await page.getByLabel("Email", { exact: true }).fill(EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
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
    await page.getByLabel("Email", { exact: true }).fill(otherEmail);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
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
