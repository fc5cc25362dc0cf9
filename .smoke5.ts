import { openDatabase } from "@als/db";
import postgres from "postgres";
import { startTcpProxy } from "./test/support/tcp-proxy.ts";
const direct = process.argv[2] === "direct";
const proxy = startTcpProxy({ host: "127.0.0.1", port: 55432 });
const port = direct ? 55432 : proxy.port;
const db = await openDatabase({ kind: "postgres", url: `postgres://postgres@127.0.0.1:${port}/als`, timeouts: { connectMs: 1000, acquireMs: 1000, statementMs: 3000 } });
const admin = postgres("postgres://postgres@127.0.0.1:55432/als", { max: 1, onnotice: () => {} });
// warm 5 connections
await Promise.all(Array.from({ length: 5 }, () => db.query("SELECT pg_sleep(0.2)")));
for (let round = 0; round < 3; round++) {
  const [{ n }] = await admin`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = 'als' AND pid <> pg_backend_pid() AND application_name = 'postgres.js' AND backend_type = 'client backend' AND pid IN (SELECT pid FROM pg_stat_activity WHERE client_port IS NOT NULL) AND query NOT LIKE '%pg_stat_activity%' AND usename = 'postgres' AND pid <> ${0}` as any;
  console.log("terminated", n);
  await Bun.sleep(700);
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => db.query("SELECT pg_sleep(0.1)")));
  console.log(results.map((r) => (r.status === "fulfilled" ? "ok" : `${(r.reason as any).reason}:${(r.reason as any).cause?.code}`)).join(" "));
}
await db.close(); await admin.end(); proxy.stop();
