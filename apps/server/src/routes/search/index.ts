import { unifiedSearch } from "./unified-search.ts";

export const searchOperations = [unifiedSearch];
