import { getConfig } from "./get-config.ts";
import { invalidateCache } from "./invalidate-cache.ts";
import { myConfig } from "./my-config.ts";
import { setConfig } from "./set-config.ts";
import { updateConfig } from "./update-config.ts";
import { whoami } from "./whoami.ts";

export const configOperations = [getConfig, setConfig, updateConfig, invalidateCache, whoami, myConfig];
