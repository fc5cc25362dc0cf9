import { createHash } from "node:crypto";
import type { ExperimentArm } from "@als/contract";

/**
 * The arm a user is in for an experiment: a hash of the two ids, so every process, before and after
 * any restart, assigns the same user the same arm without storing anything. `treatmentShare` is the
 * fraction of users in treatment.
 */
export function assignExperimentArm(experimentId: string, userId: string, treatmentShare: number): ExperimentArm {
  const digest = createHash("sha256")
    .update(JSON.stringify([experimentId, userId]))
    .digest();
  // The first 48 bits as a fraction in [0, 1): uniform enough for any share people configure.
  const position = digest.readUIntBE(0, 6) / 2 ** 48;
  return position < treatmentShare ? "treatment" : "holdout";
}
