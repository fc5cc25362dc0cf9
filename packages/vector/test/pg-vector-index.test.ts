import { type ProfileStatus, profiles } from "@als/db";
import { freshDatabase, testMode } from "@als/test-support/database.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { PgVectorIndex, type VectorPoint } from "../src/index.ts";
import { vectorIndexContract } from "./vector-index.contract.ts";

/** The points are profile rows, written by the profiles query module as every write path writes them. */
function asProfileRow(point: VectorPoint) {
  const { payload } = point;
  return {
    profile_id: point.id,
    user_id: payload.user_id as string,
    content: `point ${point.id}`,
    status: payload.status as ProfileStatus,
    source: payload.source as string,
    profile_time_to_live: "infinity",
    expires_at: payload.expires_at as number | null,
    tags: payload.tags as string[],
    custom_feature: null,
    extractor_name: null,
    generated_from_request_id: null,
    embedding: point.vector,
    embedding_model: payload.embedding_model as string,
  };
}

vectorIndexContract(`PgVectorIndex on ${testMode === "full" ? "PostgreSQL" : "PGlite"}`, async () => {
  const { db, drop } = await freshDatabase();
  return {
    index: new PgVectorIndex(db),
    async put(points) {
      // A row's created_at is the time it was written: one write per distinct created_at.
      for (const point of points) {
        await registerProject(db, point.scope);
        await profiles.upsertProfiles(db, point.scope, [asProfileRow(point)], point.payload.created_at as number);
      }
    },
    async remove(refs) {
      for (const ref of refs) await profiles.deleteProfiles(db, ref.scope, { profileId: ref.id });
    },
    close: drop,
  };
});
