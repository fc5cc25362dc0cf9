import invalidateCache from "./invalidate-cache.ts";

export const adminRoutes = { invalidateCache };
