import list from "./list.ts";
import record from "./record.ts";

export const outcomesRoutes = { record, list };
