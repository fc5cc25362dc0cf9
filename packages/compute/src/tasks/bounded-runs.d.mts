// Types of bounded-runs.mjs for TypeScript files under the root config, which does not read JavaScript.
export function boundedRuns(lengths: number[], maxTokens: number): number[][];
