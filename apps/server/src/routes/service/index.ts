import myConfig from "./my-config.ts";
import whoami from "./whoami.ts";

export const serviceRoutes = { myConfig, whoami };
