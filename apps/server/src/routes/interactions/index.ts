import deleteAll from "./delete-all.ts";
import get from "./get.ts";
import getAll from "./get-all.ts";
import learningStatus from "./learning-status.ts";
import publish from "./publish.ts";
import search from "./search.ts";

export const interactionsRoutes = { publish, deleteAll, getAll, search, get, learningStatus };
