import markStallNotified from "./mark-stall-notified.ts";
import stallState from "./stall-state.ts";

export const learningRoutes = { markStallNotified, stallState };
