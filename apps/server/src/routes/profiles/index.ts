import add from "./add.ts";
import changeLog from "./change-log.ts";
import remove from "./delete.ts";
import deleteAll from "./delete-all.ts";
import deleteByIds from "./delete-by-ids.ts";
import get from "./get.ts";
import getAll from "./get-all.ts";
import rerank from "./rerank.ts";
import search from "./search.ts";
import storageStats from "./storage-stats.ts";

export const profilesRoutes = { add, search, deleteByIds, deleteAll, changeLog, delete: remove, rerank, get, storageStats, getAll };
