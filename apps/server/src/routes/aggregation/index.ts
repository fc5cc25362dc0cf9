import get from "./get.ts";
import run from "./run.ts";
import start from "./start.ts";

export const aggregationRoutes = { run, get, start };
