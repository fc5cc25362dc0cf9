import { renderPrompt } from "@als/ai";
import { AppError } from "@als/contract";
import type { CoreDeps } from "../deps.ts";

/** Reformulation spends at most this much of a search's five-second deadline; past it the query is used as given. */
export const REFORMULATION_BUDGET_MS = 2000;

export interface ResolvedQuery {
  /** The query to search with: the reformulated one, or the original when reformulation failed. */
  query: string;
  /** The reformulated query, when reformulation produced one. */
  reformulated: string | null;
  /** Why the original query was used although reformulation was asked for. */
  degradation: "reformulation_timeout" | "reformulation_failed" | null;
}

/**
 * Rewrites a query into a standalone search query with the LLM, using the conversation for
 * context. Without a provider the request cannot be honoured and is refused (501); a provider that
 * fails or is slow degrades the search to the original query instead of failing it.
 */
export async function reformulateQuery(
  deps: Pick<CoreDeps, "llm">,
  query: string,
  conversation: readonly { role: string; content: string }[] = [],
): Promise<ResolvedQuery> {
  if (!deps.llm) {
    throw new AppError("not_implemented", "enable_reformulation needs an LLM provider: set LLM_PROVIDER, LLM_MODEL and LLM_API_KEY on the server");
  }
  const prompt = renderPrompt("query-reformulation", {
    query,
    conversation: conversation.length === 0 ? "(none)" : conversation.map((turn) => `${turn.role}: ${turn.content}`).join("\n"),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), REFORMULATION_BUDGET_MS);
  });
  try {
    const reply = await Promise.race([deps.llm.generateText({ system: prompt.system, user: prompt.user }), budget]);
    if (reply === "timeout") return { query, reformulated: null, degradation: "reformulation_timeout" };
    const rewritten = reply.text
      .split("\n")[0]!
      .trim()
      .replace(/^"(.*)"$/, "$1");
    return rewritten === ""
      ? { query, reformulated: null, degradation: "reformulation_failed" }
      : { query: rewritten, reformulated: rewritten, degradation: null };
  } catch {
    return { query, reformulated: null, degradation: "reformulation_failed" };
  } finally {
    clearTimeout(timer);
  }
}
