import unified from "./unified.ts";

export const searchRoutes = { unified };
