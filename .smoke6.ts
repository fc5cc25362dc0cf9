import postgres from "postgres";
const admin = postgres("postgres://postgres@127.0.0.1:55432/postgres", { max: 1, onnotice: () => {} });
const name = `smoke_${Date.now()}`;
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = `postgres://postgres@127.0.0.1:55432/${name}`;
const sql = postgres(url, { max: 1, onnotice: () => {} });
for (let round = 0; round < 3; round++) {
  const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`;
  const sleeping = sql`SELECT pg_sleep(2)`.catch((e) => `sleep failed ${e.code}`);
  await new Promise((r) => setTimeout(r, 200));
  await admin`SELECT pg_terminate_backend(${pid})`;
  console.log(await sleeping);
  await new Promise((r) => setTimeout(r, 300));
  console.log("next:", await sql`SELECT 1 AS x`.then((r) => `ok ${r[0].x}`, (e) => `failed ${e.code} ${e.message}`));
}
await sql.end({ timeout: 1 });
await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
await admin.end();
