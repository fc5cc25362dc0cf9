// Types of plan-lsh.mjs for TypeScript files under the root config, which does not read JavaScript.
export const MAX_ROWS: number;
export function rotationDims(dims: number): number;
export interface LshPlan {
  bitsPerTable: number;
  tables: number;
  estimatedCost: number;
}
export function planLsh(input: { rows: number; dims: number; threshold: number; sample: Float64Array }): LshPlan;
