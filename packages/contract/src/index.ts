export * from "./common.ts";
export * from "./errors.ts";
export * from "./profiles.ts";
export * from "./playbooks.ts";
export * from "./search.ts";
export * from "./interactions.ts";
export * from "./config.ts";
export * from "./learning.ts";
