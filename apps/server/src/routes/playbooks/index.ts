import deleteAll from "./delete-all.ts";

export const playbooksRoutes = { deleteAll };
