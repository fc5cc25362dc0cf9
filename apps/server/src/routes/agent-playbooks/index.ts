import add from "./add.ts";
import remove from "./delete.ts";
import deleteAll from "./delete-all.ts";
import deleteByIds from "./delete-by-ids.ts";
import get from "./get.ts";
import search from "./search.ts";
import update from "./update.ts";
import updateStatus from "./update-status.ts";

export const agentPlaybooksRoutes = { add, search, deleteByIds, get, delete: remove, updateStatus, deleteAll, update };
