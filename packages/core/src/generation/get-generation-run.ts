import { AppError } from "@als/contract";
import { type GenerationRunRecord, generationRuns, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** A generation run as it stands (status, attempts, safe error code, counts); 404 for an unknown id or another project's. */
export async function getGenerationRun(deps: CoreDeps, scope: Scope, runId: string): Promise<GenerationRunRecord> {
  const found = await generationRuns.findRun(deps.db, scope, runId);
  if (!found) throw AppError.notFound(`generation run '${runId}'`);
  return found;
}
