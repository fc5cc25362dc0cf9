import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InProcessVectorIndex } from "../src/index.ts";
import { vectorIndexContract } from "./vector-index.contract.ts";

vectorIndexContract("InProcessVectorIndex", async () => {
  const index = new InProcessVectorIndex({ collections: ["profiles"] });
  return {
    index,
    put: (points) => index.upsert("profiles", points),
    remove: (refs) => index.delete("profiles", refs),
    close: async () => {},
  };
});

vectorIndexContract("InProcessVectorIndex restored from its snapshot", async () => {
  const directory = mkdtempSync(join(tmpdir(), "in-process-index-"));
  let index = new InProcessVectorIndex({ collections: ["profiles"], directory });
  // Every write is saved and read back by a new index, as a restarted process would.
  const reopen = () => {
    index.checkpoint({ writes: "saved" });
    index = new InProcessVectorIndex({ collections: ["profiles"], directory });
    subject.index = index;
  };
  const subject = {
    index,
    put: async (points: Parameters<InProcessVectorIndex["upsert"]>[1]) => {
      await index.upsert("profiles", points);
      reopen();
    },
    remove: async (refs: Parameters<InProcessVectorIndex["delete"]>[1]) => {
      await index.delete("profiles", refs);
      reopen();
    },
    close: async () => rmSync(directory, { recursive: true, force: true }),
  };
  return subject;
});
