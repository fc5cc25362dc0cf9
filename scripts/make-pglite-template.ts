// Makes the migrated PGlite template every fresh embedded database starts from (see
// packages/db/src/migrated-template.ts), so the test suites that start side by side find it made
// rather than each making its own at once (8–9 s of CPU each).
import { migratedTemplate } from "../packages/db/src/migrated-template.ts";

await migratedTemplate();
