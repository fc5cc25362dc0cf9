import type { Operation } from "../operation.ts";
import { profileOperations } from "./profiles/index.ts";

/** Every operation of the contract this server serves, over REST and tRPC alike. */
export const operations: Operation[] = [...profileOperations] as Operation[];
