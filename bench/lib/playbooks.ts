/**
 * Deterministic synthetic user playbooks (trigger × action themes with Zipf popularity, two phrasings
 * each, a varying rationale and template), shared by bench/cluster-playbooks.ts and
 * bench/unified-search.ts. Text i depends only on PLAYBOOK_GENERATOR_VERSION and i, so cached vectors
 * serve every size.
 */
import { prng } from "./corpus.ts";

/** Bump when the playbook generator changes: the cached vectors are keyed by it. */
export const PLAYBOOK_GENERATOR_VERSION = "playbooks-v1";

/** Situations an agent meets; two phrasings each, as different users would write them. */
const TRIGGERS: readonly (readonly [string, string])[] = [
  ["the user asks for a refund after the 30-day window", "a customer wants their money back for an order older than a month"],
  ["a payment fails at checkout", "the user says their card was declined while paying"],
  ["the user wants to cancel their subscription", "a customer asks how to stop their monthly plan"],
  ["the user uploads a CSV with malformed dates", "an imported spreadsheet has dates in an unexpected format"],
  ["the user cannot log in after resetting the password", "someone is locked out even though they just changed their password"],
  ["the user asks for a summary of a long report", "a user wants the key points of a lengthy document"],
  ["the user reports that the app crashes on startup", "someone says the mobile app closes as soon as it opens"],
  ["the user asks about shipping times to Europe", "a customer wants to know how long delivery to the EU takes"],
  ["the user writes in Spanish", "a message arrives in Spanish instead of English"],
  ["the user asks for legal advice about a contract", "someone wants to know whether a contract clause is enforceable"],
  ["the user is angry about a repeated billing error", "a frustrated customer was charged twice again"],
  ["the user asks to delete their account and data", "a customer requests erasure of all their personal data"],
  ["the user asks which plan fits a team of ten", "a small team wants help choosing a pricing tier"],
  ["the user reports slow page loads in the dashboard", "someone says the analytics dashboard takes ages to load"],
  ["the user asks for code that calls the REST API", "a developer wants an example request against the public API"],
  ["the user wants to change the delivery address after ordering", "a customer needs an order shipped somewhere else than first entered"],
  ["the user asks about data retention", "someone wants to know how long their records are kept"],
  ["the user mentions a medical symptom", "a user describes chest pain or another health complaint"],
  ["the user asks for a discount", "a customer wants a coupon or a lower price"],
  ["the user asks to speak to a human", "someone insists on talking to a real person"],
  ["the user shares a screenshot of an error", "a user pastes an image of an error dialog"],
  ["the user asks how to export their data", "someone wants to download everything they stored as a file"],
  ["the user reports a security vulnerability", "a researcher says they found a security hole in the product"],
  ["the user asks the same question a third time", "a user repeats a question they already asked twice"],
  ["the user asks for product recommendations", "a shopper wants suggestions for what to buy"],
  ["the user wants to integrate with Slack", "someone asks how to connect the product to their Slack workspace"],
  ["the user reports missing items in a delivery", "a package arrived without everything that was ordered"],
  ["the user asks about an invoice for tax purposes", "a customer needs a VAT invoice for their accountant"],
  ["the user is a first-time visitor exploring features", "a new user is trying the product for the first time"],
  ["the user asks to upgrade in the middle of a billing cycle", "someone wants a bigger plan before the month ends"],
];

/** What the agent should do; two phrasings each. */
const ACTIONS: readonly (readonly [string, string])[] = [
  ["explain the policy and offer store credit instead", "state the rule politely and propose a credit on the account"],
  ["ask for the order number before anything else", "first request the order ID so the case can be looked up"],
  ["escalate to a human agent with a summary of the conversation", "hand the case to a person and include a short recap"],
  ["give step-by-step instructions with numbered steps", "answer with a numbered list of steps to follow"],
  ["reply in the user's language", "answer in the same language the user wrote in"],
  ["check the status page for incidents before troubleshooting", "look for an ongoing outage before debugging their setup"],
  ["suggest clearing the cache and reinstalling the app", "recommend wiping app data and installing it again"],
  ["link the relevant help center article", "point them to the matching help article"],
  ["apologize once and state concrete next steps", "say sorry briefly and explain exactly what happens next"],
  ["avoid giving definitive advice and recommend a professional", "do not give a firm answer and suggest consulting an expert"],
  ["confirm the request in writing and give a timeline", "acknowledge it by email and say when it will be done"],
  ["ask clarifying questions about team size and budget", "find out how many seats they need and what they can spend"],
  ["collect browser, version and time of the problem", "gather the browser, app version and when it happened"],
  ["provide a short code sample in TypeScript", "include a minimal TypeScript example"],
  ["offer a one-time courtesy discount of ten percent", "give a single ten percent goodwill discount"],
  ["verify identity with the email on file", "confirm who they are using the account email"],
  ["keep the answer under three sentences", "respond briefly, in at most three sentences"],
  ["prorate the charge and explain the calculation", "bill the difference pro rata and show how it was computed"],
  ["open a ticket with high priority", "file an urgent ticket for the team"],
  ["recommend the annual plan for savings", "suggest paying yearly to save money"],
];

/** Why; users explain their playbooks differently even when they agree on trigger and action. */
const RATIONALES: readonly string[] = [
  "because it reduces repeat contacts",
  "since users said this felt more respectful",
  "as this resolved most similar cases quickly",
  "because the policy team asked for it",
  "to avoid legal risk",
  "because customers were confused otherwise",
  "since it saves everyone time",
  "as earlier answers without it led to complaints",
  "because it keeps the conversation focused",
  "since it builds trust",
];

const TEMPLATES: readonly string[] = [
  "When {trigger}, {action}, {why}.",
  "If {trigger}: {action}. Rationale: {why}.",
  "Trigger: {trigger}. Do: {action}. Why: {why}.",
  "{Action} whenever {trigger}; {why}.",
  "In cases where {trigger}, the agent should {action} {why}.",
];

/** Themes (trigger × action) are drawn with Zipf-like popularity: a few playbooks many users derive, a long tail few do. */
const ZIPF_EXPONENT = 1.05;

/**
 * The first `count` user playbooks: each picks a theme by popularity, then phrases its trigger and
 * action one of two ways, adds a rationale and a template. Deterministic and prefix-stable (text i
 * depends only on i), so cached vectors serve every size.
 */
export function playbookTexts(count: number): string[] {
  return generatePlaybooks(count).map((playbook) => playbook.text);
}

/**
 * playbookTexts with each text's theme (trigger index × ACTIONS.length + action index): playbooks of
 * one theme give the same guidance in other words, the labels of bench/similarity-calibration.ts.
 */
export function generatePlaybooks(count: number): { text: string; theme: number }[] {
  const random = prng(0x9b_0001);
  const themes = TRIGGERS.length * ACTIONS.length;
  // Popularity order is a fixed shuffle of the themes, so popular themes are spread over triggers.
  const order = Array.from({ length: themes }, (_, i) => i);
  for (let i = themes - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= themes; rank++) {
    total += rank ** -ZIPF_EXPONENT;
    cumulative.push(total);
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, () => {
    const draw = random() * total;
    const theme = order[cumulative.findIndex((sum) => sum >= draw)]!;
    const trigger = pick(TRIGGERS[Math.floor(theme / ACTIONS.length)]!);
    const action = pick(ACTIONS[theme % ACTIONS.length]!);
    const text = pick(TEMPLATES)
      .replace("{trigger}", trigger)
      .replace("{action}", action)
      .replace("{Action}", action[0]!.toUpperCase() + action.slice(1))
      .replace("{why}", pick(RATIONALES));
    return { text, theme };
  });
}

/** How an agent asks for guidance about a situation; several words overlap the triggers so the text arm matches too. */
const QUERY_TEMPLATES: readonly string[] = [
  "what should I do when {trigger}",
  "how to handle it if {trigger}",
  "{trigger}: what is the right response",
  "guidance for when {trigger}",
  "best way to respond because {trigger}",
  "situation: {trigger}. next step?",
  "is there a playbook for when {trigger}",
  "how do we usually reply when {trigger}",
];

const QUERY_CONTEXTS: readonly string[] = [
  "",
  "",
  "",
  " on the mobile app",
  " for an enterprise customer",
  " during a holiday sale",
  " in the EU",
  " after a recent outage",
  " for a first-time buyer",
  " on a free plan",
  " late on a Friday",
  " for a long-time customer",
  " over live chat",
  " by email",
];

const QUERY_TAILS: readonly string[] = ["", "", " (urgent)", " again", " today", " and they are upset", " politely", " quickly"];

/**
 * Situation-style search queries, distinct from each other and from every text in `exclude` (which
 * it extends), so no query hits the embedder's cache of an earlier one. The space holds about 60k.
 */
export function playbookQueryTexts(count: number, seed: number, exclude: Set<string>): string[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const texts: string[] = [];
  for (let attempts = 0; texts.length < count; attempts++) {
    if (attempts > count * 50) throw new Error(`playbookQueryTexts: could not draw ${count} distinct queries`);
    const text = pick(QUERY_TEMPLATES).replace("{trigger}", pick(pick(TRIGGERS)) + pick(QUERY_CONTEXTS)) + pick(QUERY_TAILS);
    if (exclude.has(text)) continue;
    exclude.add(text);
    texts.push(text);
  }
  return texts;
}
