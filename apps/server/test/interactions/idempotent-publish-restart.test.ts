import { afterAll, describe, expect, test } from "bun:test";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";

// The server process is killed after a publish committed and before it answered: the client saw the
// connection drop, as after a crash or a network cut. Retrying with the same Idempotency-Key must
// answer with that request, not store it twice.

let deployment: Deployment | undefined;
afterAll(() => deployment?.close());

describe("a publish whose answer was lost to a killed server", () => {
  test("a retry with the same Idempotency-Key after the restart answers with the committed request, and one request is stored", async () => {
    deployment = await startableDeployment("idempotent-publish", {});
    await deployment.start();
    await deployment.restartServer({ CRASH_POINTS: "publish.after_commit" });
    const user = `retry-user-${crypto.randomUUID().slice(0, 8)}`;
    const key = crypto.randomUUID();
    const send = () =>
      fetch(`${deployment!.url}/api/publish_interaction`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ user_id: user, session_id: "s", interaction_data_list: [{ role: "User", content: "I keep chickens." }] }),
      });

    await expect(send()).rejects.toThrow();
    await deployment.serverExited();
    await deployment.restartServer();

    const retried = await send();
    expect(retried.status).toBe(200);
    const answer = (await retried.json()) as { request_id: string; interactions_created: number };
    expect(answer.interactions_created).toBe(1);
    const requests = await deployment.post("/api/get_requests", { user_id: user });
    expect(requests.status).toBe(200);
    const stored = requests.body.sessions.flatMap((session: { requests: { request: { request_id: string } }[] }) =>
      session.requests.map((each) => each.request.request_id),
    );
    expect(stored).toEqual([answer.request_id]);
    const interactions = await deployment.post("/api/get_interactions", { user_id: user });
    expect(interactions.body.interactions.map((interaction: { content: string }) => interaction.content)).toEqual(["I keep chickens."]);
    // And again: the answer the retry got is the one kept.
    expect(await (await send()).json()).toEqual(answer);
  }, 180_000);
});
