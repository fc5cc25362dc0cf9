import { AppError } from "@als/contract";

/** The answer of the stream-scoped erasure routes until streams import (activation is not served yet). */
export function streamPurgeNotImplemented(): never {
  throw new AppError(
    "not_implemented",
    "data-source streams import nothing yet (activation is not served): erase the user with POST /api/governance/erase-user, which removes everything of them in the project",
  );
}
