import backlog from "./backlog.ts";
import costs from "./costs.ts";
import listHeldWindows from "./list-held-windows.ts";
import markStallNotified from "./mark-stall-notified.ts";
import recoverHeldWindow from "./recover-held-window.ts";
import stallState from "./stall-state.ts";

export const learningRoutes = { markStallNotified, stallState, listHeldWindows, recoverHeldWindow, costs, backlog };
