import postgres from "postgres";
import { StorageUnavailableError, type Database, type Sql } from "../driver.ts";
import { isConnectionFailure } from "./connection-failure.ts";

export interface PostgresOptions {
  url: string;
  maxConnections?: number;
}

const INT8_OID = 20;

export function openPostgres(options: PostgresOptions): Database {
  const client = postgres(options.url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    // Counts and Unix-second timestamps are int8; JavaScript numbers hold them exactly.
    types: {
      int8: { to: INT8_OID, from: [INT8_OID], serialize: (n: number) => String(n), parse: (s: string) => Number(s) },
    },
    connection: {
      // Filtered HNSW scans keep walking the graph until enough rows pass the filters
      // instead of returning a short list (pgvector >= 0.8).
      "hnsw.iterative_scan": "relaxed_order",
      // The candidate list of an HNSW scan: 100 instead of pgvector's 40 lifts recall@10 of
      // project-wide searches over 100k rows (bench/unified-search.ts) for a few tenths of a ms.
      "hnsw.ef_search": "100",
    },
  });
  const run = async <T>(sql: postgres.Sql | postgres.TransactionSql, text: string, params?: readonly unknown[]) => {
    try {
      return (await sql.unsafe(text, (params ?? []) as postgres.ParameterOrJSON<never>[])) as unknown as T[];
    } catch (error) {
      throw isConnectionFailure(error) ? new StorageUnavailableError(error) : error;
    }
  };
  return {
    kind: "postgres",
    query: (text, params) => run(client, text, params),
    exec: async (script) => void (await run(client, script)),
    transaction: async (work) => {
      try {
        return (await client.begin((tx) =>
          work({ query: (text, params) => run(tx, text, params), exec: async (script) => void (await run(tx, script)) } satisfies Sql),
        )) as never;
      } catch (error) {
        throw isConnectionFailure(error) ? new StorageUnavailableError(error) : error;
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
