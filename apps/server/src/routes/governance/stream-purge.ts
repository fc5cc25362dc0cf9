import { AppError } from "@als/contract";

/** The answer of the stream-scoped erasure routes until data sources (and their streams) exist. */
export function streamPurgeNotImplemented(): never {
  throw new AppError(
    "not_implemented",
    "data-source streams do not exist in this service yet: erase the user with POST /api/governance/erase-user, which removes everything of them in the project",
  );
}
