import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type BalancedDeployment, postFrom, startBalancedDeployment } from "./balanced-deployment.ts";

// What one API process changes, the other acts on: state the processes share through the database
// (credentials here; configuration and retried writes belong beside them), in a deployment of two
// API processes and two workers behind Debian's HAProxy, AUTH_MODE=required.

const PASSWORD = "the owner's own password";
const CLIENT = "127.0.0.70";

let deployment: BalancedDeployment;
let session: string;

beforeAll(async () => {
  deployment = await startBalancedDeployment("balanced-state");
  const email = `owner-${crypto.randomUUID()}@acme.example`;
  await deployment.operator(["org", "create", "--name", "Acme", "--owner-email", email, "--owner-password-stdin"], `${PASSWORD}\n`);
  const login = await postFrom(CLIENT, `${deployment.url}/api/account/login`, { email, password: PASSWORD });
  expect(login.status).toBe(200);
  session = login.body.token;
}, 180_000);
afterAll(() => deployment?.close());

const whoamiThrough = async (url: string, token: string) => (await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;

describe("state shared by the API processes of a balanced deployment", () => {
  test("a key created through one process serves through the other, and once revoked through one is refused by both at once", async () => {
    const [first, second] = deployment.apiUrls as [string, string];
    const created = await fetch(`${first}/api/account/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session}` },
      body: JSON.stringify({ name: "agent", project_id: "default" }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key: string; prefix: string };
    expect([await whoamiThrough(second, key.key), await whoamiThrough(first, key.key)]).toEqual([200, 200]);
    const revoked = await fetch(`${first}/api/account/api-keys/${key.prefix}`, { method: "DELETE", headers: { authorization: `Bearer ${session}` } });
    expect(revoked.status).toBe(200);
    expect([await whoamiThrough(second, key.key), await whoamiThrough(first, key.key)]).toEqual([401, 401]);
  });
});
