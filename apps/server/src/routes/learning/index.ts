import { markStallNotified } from "./mark-stall-notified.ts";
import { stallState } from "./stall-state.ts";

export const learningOperations = [stallState, markStallNotified];
