import { createHash } from "node:crypto";
import type { ProjectConfig } from "../config/project-config.ts";

/**
 * Whether a session falls in a sample of `rate`: decided by a hash of the session id, so every
 * publish of a session (in any process) decides alike, and a sample at a higher rate contains the
 * sample at a lower one. `salt` keeps the samplings of different evaluations independent.
 */
export function inSample(rate: number, salt: string, sessionId: string): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return createHash("sha256").update(`${salt}\n${sessionId}`).digest().readUInt32BE(0) / 2 ** 32 < rate;
}

/**
 * What a session is sampled for, by agent_success_config: agent success grading at sampling_rate
 * (evaluation_only sessions at evaluation_only_sampling_rate, sampling_rate when that is null), and
 * per-learning verdicts at retrieved_learning_sampling_rate.
 */
export function sessionSampling(config: ProjectConfig, sessionId: string, evaluationOnly: boolean): { success: boolean; learnings: boolean } {
  const rates = config.agent_success_config;
  const successRate = evaluationOnly ? (rates.evaluation_only_sampling_rate ?? rates.sampling_rate) : rates.sampling_rate;
  return {
    success: inSample(successRate, "agent_success", sessionId),
    learnings: inSample(rates.retrieved_learning_sampling_rate, "retrieved_learning", sessionId),
  };
}
