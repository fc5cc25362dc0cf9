import add from "./add.ts";
import remove from "./delete.ts";
import deleteAll from "./delete-all.ts";
import deleteByIds from "./delete-by-ids.ts";
import get from "./get.ts";
import review from "./review.ts";
import search from "./search.ts";
import update from "./update.ts";

export const userPlaybooksRoutes = { deleteAll, delete: remove, deleteByIds, update, search, add, get, review };
