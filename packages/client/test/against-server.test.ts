import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AppRouter, ClientError, createClient } from "@als/client";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";

let svc: TestService;
let baseUrl: string;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  svc = await startTestService();
  svc.app.listen({ port: 0, hostname: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${svc.app.server!.port}`;
  client = createClient({ baseUrl });
});
afterAll(async () => {
  await svc.app.stop();
  await svc.close();
});

/** The rejection of a call that must fail, as the ClientError it must be. */
async function clientErrorOf(call: Promise<unknown>): Promise<ClientError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ClientError);
  return error as ClientError;
}

describe("the typed client over real HTTP", () => {
  test("a publish whose answer is lost on the way back is sent again with the same Idempotency-Key, and stored once", async () => {
    const sent: (string | null)[] = [];
    let answersLost = 1;
    // The network between client and server drops the first answer, after the server committed.
    const losingFetch = async (url: string, init: RequestInit) => {
      sent.push(new Headers(init.headers).get("idempotency-key"));
      const response = await globalThis.fetch(url, init);
      if (answersLost-- <= 0) return response;
      await response.text();
      throw new TypeError("the connection was reset before the answer arrived");
    };
    const retrying = createClient({ baseUrl, fetch: losingFetch, retries: 2 });
    const published = await retrying.interactions.publish({
      user_id: "kai",
      session_id: "s",
      interaction_data_list: [{ role: "User", content: "I ride a tandem" }],
    });
    // Two attempts reached the server, with one key.
    expect(sent).toEqual([sent[0]!, sent[0]!]);
    expect(sent[0]).toMatch(/^"[0-9a-f-]{36}"$/);
    const stored = await client.requests.get({ user_id: "kai" });
    expect(stored.sessions.flatMap((session) => session.requests.map((each) => each.request.request_id))).toEqual([published.request_id]);
    // A call of its own has a key of its own: a second publish of the same body is a second request.
    await retrying.interactions.publish({ user_id: "kai", session_id: "s", interaction_data_list: [{ role: "User", content: "I ride a tandem" }] });
    expect(sent).toHaveLength(3);
    expect(sent[2]).not.toBe(sent[0]);
    expect((await client.requests.get({ user_id: "kai" })).sessions[0]!.requests).toHaveLength(2);
  });

  test("a profile it adds is found by the search it sends", async () => {
    const added = await client.profiles.add({ user_profiles: [{ user_id: "ana", content: "Owns a golden retriever named Biscuit" }] });
    expect(added.profile_ids).toHaveLength(1);
    const found = await client.search.unified({ user_id: "ana", query: "what pet does she have" });
    expect(found.profiles.map((profile) => profile.profile_id)).toContain(added.profile_ids[0]!);
  });

  test("a GET sends its input as the query string, a list as repeated keys", async () => {
    await client.profiles.add({ user_profiles: [{ user_id: "ben", profile_id: "ben-old", content: "Lived in Oslo", status: "ARCHIVED" }] });
    await client.profiles.add({ user_profiles: [{ user_id: "ben", profile_id: "ben-new", content: "Lives in Bergen" }] });
    const both = await client.profiles.getAll({ user_id: "ben", status_filter: ["CURRENT", "ARCHIVED"], limit: 10 });
    expect(both.user_profiles.map((profile) => profile.profile_id).sort()).toEqual(["ben-new", "ben-old"]);
    const archived = await client.profiles.getAll({ user_id: "ben", status_filter: ["ARCHIVED"] });
    expect(archived.user_profiles.map((profile) => profile.profile_id)).toEqual(["ben-old"]);
  });

  test("a path parameter is substituted; the 404 is a ClientError with code not_found", async () => {
    const error = await clientErrorOf(client.aggregation.get({ operation_id: "no such operation" }));
    expect(error.status).toBe(404);
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("not found");
  });

  test("a 422 carries its issue list", async () => {
    const error = await clientErrorOf(client.profiles.search({ user_id: "ana", query: "x", top_k: 0 }));
    expect(error.status).toBe(422);
    expect(error.code).toBe("validation_error");
    expect(error.message).toContain("top_k");
    expect(error.issues).toEqual([expect.objectContaining({ loc: ["body", "top_k"] })]);
  });

  test("an endpoint without required input is called without any; one with required input does not compile without it", async () => {
    expect((await client.config.get()).offline_tuner_config).toBeDefined();
    expect((await client.profiles.getAll()).success).toBe(true);
    // @ts-expect-error user_profiles is required
    expect((await clientErrorOf(client.profiles.add({}))).code).toBe("validation_error");
    // @ts-expect-error operation_id is required, and the path cannot be built without it
    await expect(client.aggregation.get()).rejects.toThrow("aggregation.get needs operation_id");
  });

  test("validateResponses parses success bodies through the output schema", async () => {
    const validating = createClient({ baseUrl, validateResponses: true });
    const stats = await validating.profiles.storageStats({ user_id: "ana" });
    expect(stats.success).toBe(true);
  });

  test("createTRPCClient<AppRouter> is typed by the declarations and calls the server's tRPC router", async () => {
    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/trpc` })] });
    const added = await trpc.profiles.add.mutate({ user_profiles: [{ user_id: "cy", profile_id: "cy-1", content: "Plays the cello" }] });
    const profiles: { profile_id: string; content: string }[] = (await trpc.profiles.getAll.query({ user_id: "cy" })).user_profiles;
    expect(added.profile_ids).toEqual(["cy-1"]);
    expect(profiles.map((profile) => profile.content)).toEqual(["Plays the cello"]);
    const error = await trpc.aggregation.get.query({ operation_id: "no such operation" }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).data?.appError?.error).toBe("not_found");
  });
});
