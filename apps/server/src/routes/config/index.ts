import get from "./get.ts";
import set from "./set.ts";
import update from "./update.ts";

export const configRoutes = { update, get, set };
