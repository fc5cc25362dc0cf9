import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublishInteractionRequest } from "@als/contract";
import { AdmissionTimeoutError, PublishCapacityError, PublishSlots, publishInteractions } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

const publishOf = (userId: string, content: string) =>
  PublishInteractionRequest.parse({ user_id: userId, session_id: `${userId}-session`, interaction_data_list: [{ role: "user", content }] });

/** What `work` rejected with; fails the test when it resolved. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure, got an answer");
}

describe(`publish admission (${testMode})`, () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
    // One publish transaction at a time, each publish answered within 400 ms.
    svc.deps.services.publishSlots = new PublishSlots({ concurrency: 1, timeoutMs: 400 });
  });
  afterAll(() => svc.close());

  /**
   * Keeps every publish of `userId` from committing until the returned release is called: a row lock
   * on the user's stream position (PostgreSQL), the one engine itself (PGlite runs one transaction at a time).
   */
  async function blockPublishes(userId: string): Promise<() => Promise<void>> {
    await publishInteractions(svc.deps, LOCAL_SCOPE, publishOf(userId, "first"));
    let release: () => void = () => {};
    let held: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const transaction = svc.db.transaction(async (tx) => {
      await tx.query("SELECT 1 FROM learning_users WHERE user_id = $1 FOR UPDATE", [userId]);
      held();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await holding;
    return async () => {
      release();
      await transaction;
    };
  }

  test("a publish whose commit is not confirmed by the deadline fails with admission_timeout and its request id, and does not commit afterwards", async () => {
    const release = await blockPublishes("blocked");
    const started = performance.now();
    const failure = await failureOf(publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("blocked", "stuck")));
    expect(failure).toBeInstanceOf(AdmissionTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_000);
    const { errorCode, details } = failure as AdmissionTimeoutError;
    expect(errorCode).toBe("admission_timeout");
    expect(details.reason).toBe("admission_timeout");
    await release();
    // Its transaction runs once the lock goes, finds the deadline passed and rolls back.
    await Bun.sleep(200);
    expect(await svc.db.query("SELECT request_id FROM requests WHERE request_id = $1", [details.request_id])).toEqual([]);
  });

  test("a publish that finds every slot taken until the deadline fails with capacity_deadline_exceeded and commits nothing", async () => {
    const release = await blockPublishes("holder");
    const holder = failureOf(publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("holder", "holds the only slot")));
    await Bun.sleep(50);
    const failure = await failureOf(publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("someone-else", "no slot")));
    expect(failure).toBeInstanceOf(PublishCapacityError);
    const { errorCode, details } = failure as PublishCapacityError;
    expect([errorCode, details.reason]).toEqual(["capacity_deadline_exceeded", "capacity_deadline_exceeded"]);
    expect(await holder).toBeInstanceOf(AdmissionTimeoutError);
    await release();
    await Bun.sleep(200);
    expect(await svc.db.query("SELECT request_id FROM requests WHERE request_id = $1", [details.request_id])).toEqual([]);
    expect(await svc.db.query("SELECT count(*)::int AS published FROM requests WHERE user_id = 'someone-else'")).toEqual([{ published: 0 }]);
  });

  test("once the slot is free again a publish commits", async () => {
    const published = await publishInteractions(svc.deps, LOCAL_SCOPE, publishOf("later", "welcome back"));
    expect(await svc.db.query("SELECT user_id FROM requests WHERE request_id = $1", [published.request.request_id])).toEqual([{ user_id: "later" }]);
  });
});
