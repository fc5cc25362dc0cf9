import remove from "./delete.ts";
import deleteAll from "./delete-all.ts";
import finalizeSession from "./finalize-session.ts";
import get from "./get.ts";
import getAll from "./get-all.ts";
import learningStatus from "./learning-status.ts";
import publish from "./publish.ts";
import search from "./search.ts";

export const interactionsRoutes = { publish, finalizeSession, delete: remove, deleteAll, getAll, search, get, learningStatus };
