import get from "./get.ts";
import list from "./list.ts";
import results from "./results.ts";
import start from "./start.ts";
import stop from "./stop.ts";

export const experimentsRoutes = { list, start, get, stop, results };
