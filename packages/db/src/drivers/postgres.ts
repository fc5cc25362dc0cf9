import postgres from "postgres";
import { asStorageError, type Database, DEFAULT_STORAGE_TIMEOUTS, type Sql, type StorageTimeouts, storageTimeout } from "../driver.ts";
import { withPoolStats } from "../pool-stats.ts";
import { VectorParam } from "../queries/params.ts";
import { withStatementSpans } from "../statement-spans.ts";
import { classifyStorageError } from "../storage-failure.ts";
import { postgresSocketFactory } from "./postgres-socket.ts";

export interface PostgresOptions {
  url: string;
  maxConnections?: number;
  timeouts?: StorageTimeouts;
}

const INT8_OID = 20;
/**
 * How much longer than statement_timeout the client waits for an answer. The server cancels a slow
 * statement itself and says so; a statement still unanswered after this is on a connection whose
 * path to the server is broken (a partition), which no TCP timer would notice for many minutes.
 */
const STATEMENT_GRACE_MS = 2_000;
/** How long a pool retired for a broken path lets its healthy statements finish before it is destroyed. */
const RETIRE_GRACE_S = 1;
/**
 * Idle connections are closed after two minutes: a firewall or NAT that silently drops an idle flow
 * would otherwise leave a connection that hangs the next statement sent on it.
 */
const IDLE_TIMEOUT_S = 120;
/**
 * A transaction left idle this long has lost its client (a crash, a partition): the server ends it,
 * so the row locks it holds do not block every later write of the same rows. Our transactions only
 * pause between statements for short work (a vector index push), never for an LLM call.
 */
const IDLE_IN_TRANSACTION_MIN_MS = 60_000;

/** A postgres.js pool and what tells a broken path from a busy one. */
interface Pool {
  sql: postgres.Sql;
  /** Statements and transactions of ours under way on it. */
  inFlight: number;
  /** When it last answered anything, or went from idle to busy (performance.now()). */
  answeredAt: number;
  answered(): void;
  /** Counts a call in; the returned function counts it out, `answered` when the server replied. */
  begin(): (answered: boolean) => void;
}

function track(sql: postgres.Sql): Pool {
  const pool: Pool = {
    sql,
    inFlight: 0,
    answeredAt: performance.now(),
    answered: () => {
      pool.answeredAt = performance.now();
    },
    begin() {
      if (pool.inFlight++ === 0) pool.answered();
      let counted = true;
      return (answered) => {
        if (!counted) return;
        counted = false;
        pool.inFlight--;
        if (answered) pool.answered();
      };
    },
  };
  return pool;
}

/**
 * PostgreSQL through postgres.js, with patches/postgres@3.4.9.patch: a write after a connection
 * dropped rejects its query instead of throwing out of a timer and killing the process, and a
 * reopened connection forgets the error of the session that was terminated. Every
 * call is bounded (see StorageTimeouts): a statement waits at most `acquireMs` for a pooled
 * connection, is cancelled by the server after `statementMs`, and a statement left unanswered
 * beyond that retires the whole pool, since its connections share the broken path: new statements
 * open new connections (bounded by `connectMs`) while the old pool is destroyed. Failures of the
 * storage itself become StorageUnavailableError with their reason.
 */
export function openPostgres(options: PostgresOptions): Database {
  const timeouts = options.timeouts ?? DEFAULT_STORAGE_TIMEOUTS;
  // One for every pool: a pool opened after a broken one carries on from the next host.
  const connectSocket = postgresSocketFactory();
  const maxConnections = options.maxConnections ?? 10;
  /** The pooled calls under way (statements outside transactions, and transactions), each saying whether it holds a connection yet. */
  const holding = new Set<() => boolean>();
  const openPool = () =>
    postgres(options.url, {
      max: maxConnections,
      onnotice: () => {},
      // A socket factory is a postgres.js option its type declarations leave out.
      ...({ socket: connectSocket } as object),
      connect_timeout: timeouts.connectMs / 1000,
      idle_timeout: IDLE_TIMEOUT_S,
      // postgres.js waits before reopening a closed connection, up to 20 s after a run of failures,
      // and a statement handed to that connection waits with it: keep the wait within half the
      // acquire bound, so that once the database is back a statement is not refused for a backoff.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, timeouts.acquireMs / 2_000),
      // max_lifetime keeps postgres.js's default: 30 to 60 minutes, staggered so connections are not all renewed at once.
      // Counts and Unix-second timestamps are int8; JavaScript numbers hold them exactly.
      types: {
        int8: { to: INT8_OID, from: [INT8_OID], serialize: (n: number) => String(n), parse: (s: string) => Number(s) },
      },
      connection: {
        statement_timeout: timeouts.statementMs,
        idle_in_transaction_session_timeout: Math.max(IDLE_IN_TRANSACTION_MIN_MS, 2 * timeouts.statementMs),
        // Filtered HNSW scans keep walking the graph until enough rows pass the filters
        // instead of returning a short list (pgvector >= 0.8).
        "hnsw.iterative_scan": "relaxed_order",
        // The candidate list of an HNSW scan. Project-wide searches over 100k playbooks (with the
        // graphs of migration 0033, e5 query vectors; bench/unified-search.ts) reach recall@10
        // 0.986-0.998 at 200 against 0.960-0.994 at 100, for about 1.7 ms more at the median;
        // per-user searches use the user index and are exact either way.
        "hnsw.ef_search": "200",
      },
    });
  let pool = track(openPool());
  let closing = false;

  /** A pool whose path to the server looks broken: replace it (once) and destroy it after a short grace. */
  const retire = (broken: Pool) => {
    if (broken !== pool || closing) return;
    pool = track(openPool());
    broken.sql.end({ timeout: RETIRE_GRACE_S }).catch(() => {});
  };
  /**
   * Called when a call found no connection in time. A saturated pool still answers now and then; one
   * with work in flight and no answer for longer than any statement may run has a broken path.
   */
  const retireIfStalled = (suspect: Pool) => {
    if (suspect.inFlight > 0 && performance.now() - suspect.answeredAt > timeouts.statementMs + STATEMENT_GRACE_MS) retire(suspect);
  };

  /**
   * Runs one statement on `on` (the pool, or a transaction of `owner`). A pooled statement not sent
   * within acquireMs is cancelled before it reaches a connection, so it never runs; one sent and
   * unanswered past its bound retires `owner`. A statement of a transaction is registered in
   * `unanswered` until it is answered, so the transaction can settle it when it ends first (see
   * `transaction`).
   */
  const run = <T>(
    on: postgres.Sql | postgres.TransactionSql,
    owner: Pool,
    text: string,
    params: readonly unknown[] | undefined,
    pooled: boolean,
    unanswered?: Set<(error: unknown) => void>,
  ) =>
    new Promise<T[]>((resolve, reject) => {
      // Named (prepared) statements, kept per connection: a statement run again skips the describe
      // round trip, and after five runs PostgreSQL may keep a generic plan and skip planning, which
      // for the ranked searches cost more than executing them (bench/unified-search.ts).
      const query = on.unsafe(text, (params ?? []).map(asPostgresParam) as postgres.ParameterOrJSON<never>[], { prepare: true });
      const sent = () => (query as unknown as { state: unknown }).state != null;
      if (pooled) holding.add(sent);
      const end = owner.begin();
      const acquireTimer = pooled
        ? setTimeout(() => {
            if (sent()) return;
            holding.delete(sent);
            reject(storageTimeout("no database connection", timeouts.acquireMs));
            query.cancel();
            retireIfStalled(owner);
          }, timeouts.acquireMs)
        : undefined;
      const answerMs = (pooled ? timeouts.acquireMs : 0) + timeouts.statementMs + STATEMENT_GRACE_MS;
      const answerTimer = setTimeout(() => {
        holding.delete(sent);
        reject(storageTimeout("no answer from the database", answerMs));
        retire(owner);
      }, answerMs);
      const abandon = (error: unknown) => {
        end(false);
        clearTimeout(answerTimer);
        reject(error);
      };
      unanswered?.add(abandon);
      query.then(
        (rows) => {
          holding.delete(sent);
          unanswered?.delete(abandon);
          end(true);
          clearTimeout(acquireTimer);
          clearTimeout(answerTimer);
          resolve(rows as unknown as T[]);
        },
        (error: unknown) => {
          holding.delete(sent);
          unanswered?.delete(abandon);
          end(classifyStorageError(error) === undefined);
          clearTimeout(acquireTimer);
          clearTimeout(answerTimer);
          reject(asStorageError(error));
        },
      );
    });

  const database: Database = {
    kind: "postgres",
    query: (text, params) => run(pool.sql, pool, text, params, true),
    exec: async (script) => void (await run(pool.sql, pool, script, undefined, true)),
    transaction: async (work, transactionOptions) => {
      const owner = pool;
      const signal = transactionOptions?.signal;
      const end = owner.begin();
      let started = false;
      const holds = () => started;
      holding.add(holds);
      let abandoned = false;
      let expire: (error: unknown) => void = () => {};
      const expired = new Promise<never>((_, reject) => {
        expire = reject;
      });
      expired.catch(() => {});
      let commitTimer: ReturnType<typeof setTimeout> | undefined;
      let failed = false;
      const check = () => (signal?.aborted ? Promise.reject(signal.reason) : undefined);
      // Statements sent together (pipelined) wait in postgres.js's queue for the transaction's
      // connection while the first one is described; when that connection closes, postgres.js fails
      // the transaction but never settles the ones still queued. Left alone, their answer timers
      // would retire the healthy pool a few seconds later, so they fail with the transaction.
      const unanswered = new Set<(error: unknown) => void>();
      const committed = owner.sql.begin(async (tx) => {
        started = true;
        owner.answered();
        // The caller was told no connection came in time: it must not see this run.
        if (abandoned) throw storageTimeout("no database connection", timeouts.acquireMs);
        const result = await work({
          query: (text, params) => check() ?? run(tx, owner, text, params, false, unanswered),
          exec: async (script) => void (await (check() ?? run(tx, owner, script, undefined, false, unanswered))),
        } satisfies Sql);
        // No COMMIT once aborted: throwing here makes postgres.js roll back instead.
        signal?.throwIfAborted();
        // postgres.js sends COMMIT itself, past our statement timers: bound its answer here. A
        // transaction that failed already (its connection closed under work that carried on) sends none.
        if (!failed)
          commitTimer = setTimeout(() => {
            expire(storageTimeout("no answer to COMMIT (it may have committed)", timeouts.statementMs + STATEMENT_GRACE_MS));
            retire(owner);
          }, timeouts.statementMs + STATEMENT_GRACE_MS);
        return result;
      }) as Promise<Awaited<ReturnType<typeof work>>>;
      committed.then(
        () => end(true),
        (error: unknown) => {
          failed = true;
          end(classifyStorageError(error) === undefined);
          for (const abandon of unanswered) abandon(asStorageError(error));
        },
      );
      const acquireTimer = setTimeout(() => {
        if (started) return;
        abandoned = true;
        expire(storageTimeout("no database connection", timeouts.acquireMs));
        retireIfStalled(owner);
      }, timeouts.acquireMs);
      try {
        return await Promise.race([committed, expired]);
      } catch (error) {
        throw asStorageError(error);
      } finally {
        holding.delete(holds);
        clearTimeout(acquireTimer);
        clearTimeout(commitTimer);
      }
    },
    close: async () => {
      closing = true;
      await pool.sql.end({ timeout: 5 });
    },
  };
  return withPoolStats(withStatementSpans(database), maxConnections, holding);
}

/** A parameter as postgres.js sends it: a vector as its text, which the server parses on its own cores. */
function asPostgresParam(param: unknown): unknown {
  return param instanceof VectorParam ? param.text : param;
}
