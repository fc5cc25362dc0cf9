/**
 * Deterministic synthetic conversation turns for the publish bench: a User message and an Agent
 * reply of about 20 to 40 words each, drawn by a seeded PRNG. Some user turns carry a phrase the
 * scripted LLM of test/support/scripted-llm.ts "recognises" (so windows yield profiles, and later
 * windows restate them and go through deduplication), and some agent turns carry an expert's ideal
 * response (so windows yield a playbook).
 */
import { prng } from "./corpus.ts";

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const V = {
  topic: [
    "my monthly budget",
    "a trip to Japan",
    "the quarterly report",
    "a birthday dinner",
    "my running plan",
    "a job interview",
    "our team offsite",
    "the kitchen renovation",
    "a Spanish course",
    "my tax return",
    "the product launch",
    "a weekend hike",
  ],
  detail: [
    "by Friday",
    "for about six people",
    "on a tight budget",
    "without losing a weekend",
    "before my manager reviews it",
    "in time for the holidays",
    "with the tools I already have",
    "so my partner can follow",
  ],
  ask: [
    "Can you give me a short plan with the first three steps?",
    "What would you do first, and what can wait?",
    "Could you list the options and pick one?",
    "Please suggest a realistic schedule.",
    "Can you summarise what matters most?",
  ],
  feeling: [
    "I keep putting it off",
    "I am a bit overwhelmed",
    "last time it went badly",
    "I only have evenings free",
    "my notes are all over the place",
    "I changed my mind twice already",
  ],
  fact: ["I have a golden retriever, by the way.", "Also, I am vegan.", "Note that I am in Lisbon this week."],
  opener: ["Good question.", "Happy to help with that.", "That sounds manageable.", "Let us break it down.", "Here is how I would approach it."],
  step: [
    "write down the one deadline that cannot move",
    "pick the two tasks that unblock everything else",
    "set aside a single focused hour tomorrow evening",
    "collect what you already have in one document",
    "decide the budget before comparing options",
  ],
  follow: [
    "Then drop anything that is only nice to have.",
    "Check in on Thursday and adjust if something slipped.",
    "The remaining steps are mostly routine.",
    "Tell me if anything changes.",
  ],
  expert: [
    "Start with the deadline, then give exactly three numbered steps and offer a plant based option for any meal.",
    "Confirm the constraints first, then propose one plan with dates instead of a list of alternatives.",
  ],
};

export interface TurnPair {
  user: { role: "User"; content: string };
  agent: { role: "Agent"; content: string; expert_content?: string };
}

/** The n-th turn pair of a user; depends only on the two numbers. */
export function turnPair(userIndex: number, n: number): TurnPair {
  const random = prng(((userIndex + 1) * 0x9e3779b1) ^ ((n + 1) * 0x85ebca6b));
  let user = `I need help with ${pick(random, V.topic)} ${pick(random, V.detail)}, and honestly ${pick(random, V.feeling)}. ${pick(random, V.ask)}`;
  // About a third of the user turns state a fact the scripted model extracts as a profile.
  if (random() < 0.35) user = `${user} ${pick(random, V.fact)}`;
  const agent = `${pick(random, V.opener)} First, ${pick(random, V.step)}. Second, ${pick(random, V.step)}. ${pick(random, V.follow)}`;
  // About one agent turn in eight has an expert's ideal response: the scripted model derives a playbook.
  const expert = random() < 0.125 ? pick(random, V.expert) : undefined;
  return { user: { role: "User", content: user }, agent: { role: "Agent", content: agent, ...(expert ? { expert_content: expert } : {}) } };
}

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;
