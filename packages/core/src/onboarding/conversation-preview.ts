import { AppError, type ConversationPreview, type OnboardingConversationQuery } from "@als/contract";
import { onboardingEvidence, type Scope } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { followedConversation } from "./onboarding-evidence.ts";
import { currentRunNamed } from "./onboarding-status.ts";

/** The contract's limits of the preview. */
const MESSAGES = 3;
const CHARACTERS = 1_000;

/**
 * At most three messages of a request of the conversation the current run follows, each cut to
 * 1,000 characters. Reads stored interactions only: it changes no progress and asks no provider.
 * 409 when the run or the selection the caller saw is no longer current.
 */
export async function previewConversation(
  deps: CoreDeps,
  scope: Scope,
  query: z.output<typeof OnboardingConversationQuery>,
): Promise<z.input<typeof ConversationPreview>> {
  const run = await currentRunNamed(deps, scope, query.run_id);
  const followed = await followedConversation(deps, scope, run);
  if (!followed.requests.some((request) => request.request_id === query.request_id)) {
    throw new AppError("conflict", `request ${query.request_id} is not in the conversation the run follows now: read the status again`);
  }
  const messages = await onboardingEvidence.firstInteractionsOfRequest(deps.db, scope, query.request_id, MESSAGES);
  return {
    messages: messages.map((message) => {
      // Characters, not UTF-16 units: a cut never splits a surrogate pair.
      const characters = Array.from(message.content);
      return {
        interaction_id: message.interaction_id,
        role: message.role,
        content: characters.slice(0, CHARACTERS).join(""),
        truncated: characters.length > CHARACTERS,
      };
    }),
    has_more: false,
  };
}
