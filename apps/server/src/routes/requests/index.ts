import remove from "./delete.ts";
import deleteByIds from "./delete-by-ids.ts";
import deleteSession from "./delete-session.ts";
import get from "./get.ts";

export const requestsRoutes = { get, deleteByIds, deleteSession, delete: remove };
