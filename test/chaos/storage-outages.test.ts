import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { until } from "@als/test-support/server-process.ts";
import postgres from "postgres";
import { type Answer, BOUNDS, type ChaosService, keepCalling, reasonOf, requestIdOf, startChaosService } from "./chaos-service.ts";

// Full mode only: a real API server process and a real worker process on PostgreSQL and Temporal,
// their database connections through a TCP proxy the test cuts, resets or holds.
const serverUrl = process.env.TEST_DATABASE_URL;
const fullMode = process.env.TEST_MODE === "full" && serverUrl !== undefined;

/** The answers outside `allowed` or slower than `boundMs`, as readable lines (expected to be none). */
function violations(answers: Answer[], boundMs: number, allowed: number[]): string[] {
  return answers
    .filter((answer) => !allowed.includes(answer.status) || answer.ms > boundMs)
    .map((answer) => `${answer.status} after ${Math.round(answer.ms)} ms: ${JSON.stringify(answer.body).slice(0, 200)}`);
}

describe.skipIf(!fullMode)("storage outages under a real server and worker", () => {
  let database: { url: string; drop: () => Promise<void> };
  let svc: ChaosService;
  let server: postgres.Sql;

  beforeAll(async () => {
    database = await createFreshDatabase(serverUrl!);
    server = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    svc = await startChaosService({ databaseUrl: database.url, worker: true });
  }, 120_000);

  afterAll(async () => {
    await svc?.close();
    await server?.end();
    await database?.drop();
  });

  /** After an outage: a publish is acknowledged and /health answers 200 again, soon. */
  async function recovers(): Promise<void> {
    await until(async () => ((await svc.publish("recovery", "back again")).status === 200 ? true : undefined), 20_000);
    await until(async () => ((await svc.health()).status === 200 ? true : undefined), 10_000);
  }

  test("terminated and reset connections during publishes and searches: no process exits, every answer is 200 or 503/504 in time, every acknowledged publish is stored", async () => {
    let running = true;
    let terminated = 0;
    const chaos = (async () => {
      for (let round = 0; round < 8; round++) {
        await Bun.sleep(700);
        if (round % 2 === 0) terminated += await svc.terminateBackends();
        else svc.proxy.reset();
      }
      running = false;
    })();
    const [publishes, searches] = await Promise.all([
      keepCalling(
        4,
        () => running,
        (loop, round) => svc.publish(`load-${loop}`, `note ${round} from caller ${loop}`, { force_extraction: round % 4 === 0 }),
      ),
      keepCalling(
        1,
        () => running,
        (_, round) => svc.search(`load-${round % 4}`, "note from caller"),
      ),
    ]);
    await chaos;

    expect(svc.alive()).toBe(true);
    expect(terminated).toBeGreaterThan(0);
    expect(violations(publishes, BOUNDS.publishMs, [200, 503, 504])).toEqual([]);
    expect(violations(searches, BOUNDS.searchMs, [200, 503, 504])).toEqual([]);
    const acknowledged = publishes.filter((answer) => answer.status === 200).map((answer) => answer.body.request_id as string);
    expect(acknowledged.length).toBeGreaterThan(4);
    const stored = await svc.storedRequests(acknowledged);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    // Each acknowledged request's interaction is there too.
    const [{ interactions }] = (await svc.admin`SELECT count(*)::int AS interactions FROM interactions WHERE request_id = ANY(${acknowledged})`) as unknown as [
      { interactions: number },
    ];
    expect(interactions).toBe(acknowledged.length);
    await recovers();
    expect(svc.alive()).toBe(true);
  }, 60_000);

  test("a publish stuck behind a lock answers 504 admission_timeout and publishes finding no slot answer 503 capacity_deadline_exceeded, each with its request id, none committed", async () => {
    expect((await svc.publish("locked", "first")).status).toBe(200);
    // As many publishes at once as will be stuck, until all of them get through: the tests before this
    // one cut the pool's connections, and what follows measures the lock alone. (After a partition the
    // pool needs a few seconds to replace its dead connections; concurrent publishes answer 503 meanwhile.)
    const started = Date.now();
    await until(async () => {
      const warm = await Promise.all(Array.from({ length: 4 }, (_, index) => svc.publish(`warm-${index}`, "warm")));
      return warm.every((answer) => answer.status === 200) ? true : undefined;
    }, 20_000);
    console.log(`four concurrent publishes all answered 200 again after ${Date.now() - started} ms`);
    // Stuck, the publishes hold more connections at once than four publishes do (each one blocked in
    // a shared transaction runs again alone and waits there), so the pool's connections are made
    // live again too (concurrent searches, three statements each, open them) and all handed back
    // (als_db_pool_in_use on /metrics) before the lock is taken.
    await until(async () => {
      const searches = await Promise.all(Array.from({ length: 4 }, (_, index) => svc.search(`warm-${index}`, "warm")));
      return searches.every((answer) => answer.status === 200) ? true : undefined;
    }, 20_000);
    await until(async () => {
      const metrics = await (await fetch(`${svc.url}/metrics`)).text();
      return /^als_db_pool_in_use 0$/m.test(metrics) ? true : undefined;
    }, 20_000);
    const locker = postgres(database.url, { max: 1, onnotice: () => {} });
    let unlock: () => void = () => {};
    let locked: () => void = () => {};
    const lockHeld = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // Holds the row every publish of user "locked" updates first (its stream position).
    const holding = locker.begin(async (tx) => {
      await tx`SELECT 1 FROM learning_users WHERE user_id = 'locked' FOR UPDATE`;
      locked();
      await new Promise<void>((resolve) => {
        unlock = resolve;
      });
    });
    try {
      await lockHeld;
      // As many as the process admits publishes at once (SERVICE_PUBLISH_CONCURRENCY): every slot is taken.
      const stuck = Array.from({ length: 4 }, (_, index) => svc.publish("locked", `stuck ${index}`));
      await Bun.sleep(300);
      const queued = Array.from({ length: 3 }, (_, index) => svc.publish(`free-${index}`, `queued ${index}`));
      const stuckAnswers = await Promise.all(stuck);
      const queuedAnswers = await Promise.all(queued);
      for (const answer of stuckAnswers) {
        expect([answer.status, answer.body.error, reasonOf(answer.body)]).toEqual([504, "admission_timeout", "admission_timeout"]);
        expect(requestIdOf(answer.body)).toBeString();
        expect(answer.ms).toBeLessThan(BOUNDS.publishMs);
      }
      for (const answer of queuedAnswers) {
        expect([answer.status, answer.body.error, reasonOf(answer.body)]).toEqual([503, "capacity_deadline_exceeded", "capacity_deadline_exceeded"]);
        expect(requestIdOf(answer.body)).toBeString();
        expect(answer.ms).toBeLessThan(BOUNDS.publishMs);
      }
      unlock();
      await holding;
      // The stuck ones find their deadline passed at their next statement and roll back.
      await Bun.sleep(1_000);
      const ids = [...stuckAnswers, ...queuedAnswers].map((answer) => requestIdOf(answer.body)!);
      expect([...(await svc.storedRequests(ids))]).toEqual([]);
      expect((await svc.publish("locked", "after the lock")).status).toBe(200);
    } finally {
      unlock();
      await holding.catch(() => {});
      await locker.end();
    }
  }, 30_000);

  test("a partition between the processes and PostgreSQL: publishes answer 503/504 within the admission deadline, /health 503 within its timeout, and all recovers when the path does", async () => {
    expect((await svc.publish("partition", "before the partition")).status).toBe(200);
    svc.proxy.hold();
    let running = true;
    const partition = Bun.sleep(8_000).then(() => {
      running = false;
    });
    const [publishes, healths, searches] = await Promise.all([
      keepCalling(
        3,
        () => running,
        (loop, round) => svc.publish(`partition-${loop}`, `during ${round}`),
      ),
      keepCalling(
        1,
        () => running,
        () => svc.health(),
      ),
      keepCalling(
        1,
        () => running,
        () => svc.search("partition", "before the partition"),
      ),
    ]);
    await partition;
    svc.proxy.release();

    expect(svc.alive()).toBe(true);
    expect(violations(publishes, BOUNDS.publishMs, [503, 504])).toEqual([]);
    expect(
      publishes.map((answer) => answer.body.error).filter((code) => !["storage_unavailable", "admission_timeout", "capacity_deadline_exceeded"].includes(code)),
    ).toEqual([]);
    expect(violations(healths, BOUNDS.healthMs, [503])).toEqual([]);
    expect(violations(searches, BOUNDS.searchMs, [503, 504])).toEqual([]);
    await recovers();
    // Refused for capacity means nothing committed, even once the held bytes got through.
    const refused = publishes.filter((answer) => answer.body.error === "capacity_deadline_exceeded").map((answer) => requestIdOf(answer.body)!);
    expect([...(await svc.storedRequests(refused))]).toEqual([]);
    expect(svc.alive()).toBe(true);
  }, 60_000);

  test("a database that refuses connections (55000) or is gone (3D000) answers 503 naming storage, and all recovers when it is back", async () => {
    const name = new URL(database.url).pathname.slice(1);
    const endSessions = () => server`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
    const expectUnavailable = async () => {
      const published = await svc.publish("missing", "anyone there?");
      expect([published.status, published.body.error, published.body.component]).toEqual([503, "storage_unavailable", "storage"]);
      expect(published.ms).toBeLessThan(BOUNDS.publishMs);
      const health = await svc.health();
      expect([health.status, health.body.error]).toEqual([503, "storage_unavailable"]);
      expect(health.ms).toBeLessThan(BOUNDS.healthMs);
    };
    try {
      await server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await endSessions();
      await expectUnavailable();
      await server.unsafe(`ALTER DATABASE ${name} RENAME TO ${name}_gone`);
      await expectUnavailable();
      expect(svc.alive()).toBe(true);
    } finally {
      await server.unsafe(`ALTER DATABASE ${name}_gone RENAME TO ${name}`).catch(() => {});
      await server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    await recovers();
    expect(svc.alive()).toBe(true);
  }, 60_000);
});
