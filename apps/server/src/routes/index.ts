import type { Operation } from "../operation.ts";
import { aggregationOperations } from "./aggregation/index.ts";
import { configOperations } from "./config/index.ts";
import { generationOperations } from "./generation/index.ts";
import { interactionOperations } from "./interactions/index.ts";
import { learningOperations } from "./learning/index.ts";
import { playbookOperations } from "./playbooks/index.ts";
import { profileOperations } from "./profiles/index.ts";
import { searchOperations } from "./search/index.ts";

/** Every operation of the contract this server serves, over REST and tRPC alike. */
export const operations = [...profileOperations, ...playbookOperations, ...searchOperations, ...configOperations, ...interactionOperations, ...learningOperations, ...generationOperations, ...aggregationOperations] as Operation[];
