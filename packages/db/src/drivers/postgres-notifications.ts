import postgres from "postgres";
import { DEFAULT_STORAGE_TIMEOUTS, type StorageTimeouts, storageTimeout } from "../driver.ts";
import { postgresSocketFactory } from "./postgres-socket.ts";

/**
 * How often the listening connection is sent a statement, which must be answered before the next is
 * due. A path that broke silently (a partition, a dropped NAT flow) closes nothing, and TCP keepalive
 * would notice only after minutes; so notifications can go unheard for at most about twice this long
 * before `lost` is called. A slow answer on a loaded server (seen past 2 s on a saturated machine)
 * costs a needless reconnect, so the answer gets as long as a statement waits for a connection.
 */
const HEARTBEAT_MS = 5_000;
/** Waits between attempts to listen again: doubling from the first, up to the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

export interface NotificationHandlers {
  /** A notification on the channel: sent by a transaction of any session of the database that committed. */
  notified(payload: string): void;
  /** Listening (again): every notification committed from now on arrives. */
  listening(): void;
  /** Not listening any more: notifications committed from now until `listening` are never heard. */
  lost(error: unknown): void;
}

export interface NotificationListenerOptions {
  url: string;
  channel: string;
  /** What pg_stat_activity shows for the listening connection. */
  applicationName: string;
  /** Unset: DEFAULT_STORAGE_TIMEOUTS. */
  timeouts?: StorageTimeouts;
  /** Unset: HEARTBEAT_MS. */
  heartbeatMs?: number;
}

export interface NotificationListener {
  readonly isListening: boolean;
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` on a connection of its own and keeps listening: when the connection closes,
 * fails or stops answering the heartbeat, it says so (`lost`), opens a new connection and LISTENs
 * again, retrying with a bounded backoff while the database cannot be reached. Notifications sent
 * while it was not listening are gone for good (PostgreSQL keeps none for a session that is not
 * listening), so a caller that must miss nothing treats `lost` as "anything may have changed".
 */
export function listenForNotifications(options: NotificationListenerOptions, handlers: NotificationHandlers): NotificationListener {
  const timeouts = options.timeouts ?? DEFAULT_STORAGE_TIMEOUTS;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const connectSocket = postgresSocketFactory();
  const listen = `LISTEN "${options.channel.replaceAll('"', '""')}"`;
  let current: postgres.Sql | undefined;
  let listening = false;
  let closed = false;
  let failures = 0;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  // Each attempt opens a connection of its own and drops it on failure: what postgres.js would
  // reconnect by itself comes back without the LISTEN, which lives and dies with the session.
  const connect = (): postgres.Sql => {
    const sql: postgres.Sql = postgres(options.url, {
      max: 1,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      connect_timeout: timeouts.connectMs / 1000,
      connection: { application_name: options.applicationName, statement_timeout: timeouts.statementMs },
      onclose: () => {
        if (sql === current) broken(new Error("the listening connection closed"));
      },
      // A socket factory and a notification handler are postgres.js options its type declarations leave out.
      ...({
        socket: connectSocket,
        onnotify: (channel: string, payload: string) => {
          if (sql === current && listening && channel === options.channel) handlers.notified(payload);
        },
      } as object),
    });
    return sql;
  };

  const broken = (error: unknown) => {
    const sql = current;
    current = undefined;
    clearInterval(heartbeat);
    sql?.end({ timeout: 0 }).catch(() => {});
    if (listening) {
      listening = false;
      handlers.lost(error);
    }
    if (!closed) retry = setTimeout(subscribe, Math.min(RETRY_FIRST_MS * 2 ** failures++, RETRY_MAX_MS));
  };

  const subscribe = async () => {
    if (closed) return;
    const sql = connect();
    current = sql;
    try {
      await answered(sql.unsafe(listen), timeouts.connectMs + timeouts.statementMs, "no answer to LISTEN");
      if (sql !== current) return;
      failures = 0;
      listening = true;
      handlers.listening();
      let unanswered = false;
      heartbeat = setInterval(() => {
        // Judged after the event loop has read what arrived (setImmediate runs after its I/O poll):
        // a process too busy to run its timers on time has not lost its connection for that.
        setImmediate(() => {
          if (sql !== current) return;
          if (unanswered) return broken(storageTimeout("no answer to the listening connection's heartbeat", heartbeatMs));
          unanswered = true;
          sql`SELECT 1`.then(
            () => {
              unanswered = false;
            },
            (error: unknown) => {
              if (sql === current) broken(error);
            },
          );
        });
      }, heartbeatMs);
    } catch (error) {
      if (sql === current) broken(error);
    }
  };

  void subscribe();
  return {
    get isListening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const sql = current;
      current = undefined;
      await sql?.end({ timeout: 1 });
    },
  };
}

/** `query`'s answer, or a storage timeout after `ms`; a query given up on still settles quietly. */
function answered<T>(query: PromiseLike<T>, ms: number, what: string): Promise<T> {
  const settled = Promise.resolve(query);
  settled.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storageTimeout(what, ms)), ms);
  });
  return Promise.race([settled, timedOut]).finally(() => clearTimeout(timer));
}
