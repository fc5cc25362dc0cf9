import { describe, expect, test } from "bun:test";
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

describe(`PgVectorIndex's reads on ${testMode === "full" ? "PostgreSQL" : "PGlite"}`, () => {
  // Points are read in pgvector's binary form (vector_send): every value must come back as the
  // float4 the column holds, whichever way it is read.
  test("give each point's vector as the column holds it, by reference and page by page", async () => {
    const { db, drop } = await freshDatabase();
    try {
      const scope = { orgId: "org-read", projectId: "project-read" };
      await registerProject(db, scope);
      const vectorOf = (seed: number) => Array.from({ length: 384 }, (_, i) => (i === 0 ? 0 : Math.sin(seed * 3.3 + i) * 10 ** ((i % 7) - 4)));
      const points: VectorPoint[] = [1, 2, 3].map((seed) => ({
        scope,
        id: `read-${seed}`,
        vector: vectorOf(seed),
        payload: { user_id: "reader", status: "CURRENT", source: "test", expires_at: null, tags: [], embedding_model: "m", created_at: 1 },
      }));
      for (const point of points) await profiles.upsertProfiles(db, scope, [asProfileRow(point)], 1);
      const index = new PgVectorIndex(db);
      const [asText] = await db.query<{ text: string }>("SELECT embedding::text AS text FROM profiles WHERE profile_id = 'read-2'");
      const byRef = await index.readPoints("profiles", [{ scope, id: "read-2" }]);
      // The text form is the shortest decimal that reads back as the same float4.
      expect(byRef.map((point) => point.vector)).toEqual([(JSON.parse(asText!.text) as number[]).map(Math.fround)]);
      expect(byRef[0]!.vector).toEqual(vectorOf(2).map(Math.fround));
      const paged = [...(await index.readRowsAfter("profiles", null, 2)), ...(await index.readRowsAfter("profiles", { scope, id: "read-2" }, 2))];
      expect(paged.map((row) => row.point?.id)).toEqual(["read-1", "read-2", "read-3"]);
      expect(paged.map((row) => row.point?.vector)).toEqual(points.map((point) => point.vector.map(Math.fround)));
    } finally {
      await drop();
    }
  });
});
