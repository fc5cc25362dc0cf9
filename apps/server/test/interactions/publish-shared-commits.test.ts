import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublishInteractionRequest } from "@als/contract";
import { AdmissionTimeoutError, PublishSlots, publishInteractions } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// Publishes that arrive while the process's publish transactions are busy share the next one
// (SharedCommits). Sharing must lose nothing, duplicate nothing, keep each user's stream whole, and
// never make one publish's failure, lock wait or deadline another's answer.

const publishOf = (userId: string, contents: string[]) =>
  PublishInteractionRequest.parse({
    user_id: userId,
    session_id: `${userId}-session`,
    interaction_data_list: contents.map((content) => ({ role: "user", content })),
  });

/** How many transactions wrote these requests: rows inserted by one transaction share its xmin. */
async function transactionsOf(svc: TestService, requestIds: string[]): Promise<number> {
  const [row] = await svc.db.query<{ transactions: number }>(
    "SELECT count(DISTINCT xmin::text)::int AS transactions FROM requests WHERE request_id = ANY($1)",
    [requestIds],
  );
  return row!.transactions;
}

describe(`publishes sharing a transaction (${testMode})`, () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  test("forty publishes at once share transactions, and every user's stream positions stay whole and unique", async () => {
    const users = ["share-a", "share-b", "share-c", "share-d"];
    const published = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        publishInteractions(svc.deps, LOCAL_SCOPE, publishOf(users[index % 4]!, [`turn ${index} one`, `turn ${index} two`])),
      ),
    );
    const requestIds = published.map((p) => p.request.request_id);
    expect(await transactionsOf(svc, requestIds)).toBeLessThan(40);
    for (const user of users) {
      const rows = await svc.db.query<{ request_id: string; seq: number; content: string }>(
        "SELECT request_id, seq::int AS seq, content FROM interactions WHERE user_id = $1 ORDER BY seq",
        [user],
      );
      expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      for (const p of published.filter((q) => q.request.user_id === user)) {
        const own = rows.filter((row) => row.request_id === p.request.request_id);
        expect(own.map((row) => row.seq)).toEqual([p.request.first_seq, p.request.last_seq]);
        expect(own.map((row) => row.content).every((content) => content.startsWith("turn "))).toBe(true);
      }
    }
    const [stored] = await svc.db.query<{ requests: number }>("SELECT count(*)::int AS requests FROM requests WHERE user_id = ANY($1)", [users]);
    expect(stored!.requests).toBe(40);
  });

  test("a publish that fails inside a shared transaction fails alone: the others of its transaction commit", async () => {
    let refusals = 0;
    const others = Array.from({ length: 12 }, (_, index) => publishInteractions(svc.deps, LOCAL_SCOPE, publishOf(`fine-${index}`, [`fine ${index}`])));
    // Queued behind the others, so it starts in a transaction with some of them.
    const refused = publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("refused", ["refused"]), {
      withinCommit: async () => {
        refusals++;
        throw new Error("the importer's receipt was refused");
      },
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const committed = await Promise.all(others);
    expect(((await refused) as Error).message).toBe("the importer's receipt was refused");
    // Once in the shared transaction (which rolled back) and once alone; the others of that
    // transaction went back to the queue and shared the next one.
    expect(refusals).toBe(2);
    expect(
      await transactionsOf(
        svc,
        committed.map((p) => p.request.request_id),
      ),
    ).toBeLessThan(12);
    expect(committed.map((p) => p.request.first_seq)).toEqual(Array.from({ length: 12 }, () => 1));
    expect(await svc.db.query("SELECT request_id FROM requests WHERE user_id = 'refused'")).toEqual([]);
    expect(await svc.db.query("SELECT interaction_id FROM interactions WHERE user_id = 'refused'")).toEqual([]);
  });

  // PGlite runs one transaction at a time: no lock of another transaction can be met inside one.
  test.skipIf(testMode !== "full")(
    "a publish blocked by a lock held elsewhere holds up none of the publishes it shared a transaction with, and does not commit past its deadline",
    async () => {
      const slots = svc.deps.services.publishSlots;
      svc.deps.services.publishSlots = new PublishSlots({ concurrency: 16, timeoutMs: 5_000 });
      await publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("locked", ["before the lock"]));
      let release: () => void = () => {};
      let held: () => void = () => {};
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      const locker = svc.db.transaction(async (tx) => {
        await tx.query("SELECT 1 FROM learning_users WHERE user_id = 'locked' FOR UPDATE");
        held();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      });
      try {
        await holding;
        const started = performance.now();
        const first = Array.from({ length: 6 }, (_, index) => publishInteractions(svc.deps, LOCAL_SCOPE, publishOf(`first-${index}`, [`first ${index}`])));
        const blocked = publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("locked", ["while locked"])).then(
          () => undefined,
          (error: unknown) => error,
        );
        const beside = Array.from({ length: 6 }, (_, index) => publishInteractions(svc.deps, LOCAL_SCOPE, publishOf(`beside-${index}`, [`beside ${index}`])));
        await Promise.all([...first, ...beside]);
        // Held up by the blocked one, they would have waited for its deadline (5 s) before running again;
        // the margin is for a machine busy with other suites (1.3 s was seen there).
        expect(performance.now() - started).toBeLessThan(3_500);
        const failure = await blocked;
        expect(failure).toBeInstanceOf(AdmissionTimeoutError);
        release();
        await locker;
        await Bun.sleep(200);
        const { request_id } = (failure as AdmissionTimeoutError).details;
        expect(await svc.db.query("SELECT request_id FROM requests WHERE request_id = $1", [request_id])).toEqual([]);
        expect((await publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("locked", ["after the lock"]))).request.first_seq).toBe(2);
      } finally {
        release();
        await locker.catch(() => {});
        svc.deps.services.publishSlots = slots;
      }
    },
  );
});
