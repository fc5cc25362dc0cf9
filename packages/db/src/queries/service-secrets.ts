import type { Sql } from "../driver.ts";

/**
 * The stored value of secret `name`, storing `candidate` first when there is none. Concurrent
 * callers (several processes) all get the one value that won.
 */
export async function getOrCreateSecret(sql: Sql, name: string, candidate: string): Promise<string> {
  await sql.query("INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [name, candidate]);
  const [row] = await sql.query<{ value: string }>("SELECT value FROM service_secrets WHERE name = $1", [name]);
  return row!.value;
}
