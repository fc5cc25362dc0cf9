import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError, type CredentialKind, ERROR_TABLE, errorCodesOf, NoInput } from "@als/contract";
import { authorizeRequest } from "@als/identity";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { createTenant } from "@als/test-support/tenants.ts";
import { Validator } from "@seriousme/openapi-schema-validator";
import { routeList } from "../../src/routes/index.ts";

let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService();
  doc = (await svc.call("GET", "/openapi.json")).body;
});
afterAll(() => svc.close());

/** An optional body field's own schema, without the null it also accepts (read as omitted). */
const notNull = (schema: any) => schema.anyOf?.find((each: any) => each.type !== "null") ?? schema;

const operationOf = (path: string, method: string) => doc.paths[path.replace(/:(\w+)/g, "{$1}")][method.toLowerCase()];

describe("/openapi.json", () => {
  test("/docs states each endpoint's credentials exactly as they are accepted: a governance session wherever a login session is", async () => {
    const tenant = await createTenant(svc.deps);
    const tokens: Record<CredentialKind, string> = {
      api_key: tenant.fullKey,
      limited_api_key: tenant.limitedKey,
      login_session: tenant.loginSession,
      governance_session: tenant.governanceSession,
    };
    const names: Record<CredentialKind, string> = {
      api_key: "full-access API key",
      limited_api_key: "limited API key",
      login_session: "login session",
      governance_session: "governance session",
    };
    /** Whether the resolver lets `authorization` through to the handler (any answer but a refused credential). */
    const passes = async (endpoint: (typeof routeList)[number]["endpoint"], mode: "local" | "required", authorization: string | null) => {
      const pathParams = endpoint.projectPathParam ? { [endpoint.projectPathParam]: "default" } : {};
      try {
        await authorizeRequest(svc.deps, mode, endpoint, { authorization, project: endpoint.projectPathParam ? "default" : null }, pathParams);
        return true;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return !(error.code === "unauthorized" || (error.code === "forbidden" && /accepts /.test(error.message)));
      }
    };
    let checked = 0;
    for (const { endpoint } of routeList) {
      const description: string = operationOf(endpoint.path, endpoint.method).description;
      if (endpoint.public) {
        expect(description).toStartWith("Credentials: none");
        continue;
      }
      const stated = /^Credentials: ([^.(]+)/.exec(description)![1]!;
      for (const kind of Object.keys(tokens) as CredentialKind[]) {
        const accepted = await passes(endpoint, "required", `Bearer ${tokens[kind]}`);
        expect({ procedure: endpoint.procedure, kind, stated: stated.includes(names[kind]) }).toEqual({
          procedure: endpoint.procedure,
          kind,
          stated: accepted,
        });
        checked++;
      }
      const localWithout = await passes(endpoint, "local", null);
      expect({ procedure: endpoint.procedure, local: description.includes("the local organisation in AUTH_MODE=local") }).toEqual({
        procedure: endpoint.procedure,
        local: localWithout,
      });
      expect(await passes(endpoint, "required", null)).toBe(false);
    }
    expect(checked).toBeGreaterThan(100);
    expect(operationOf("/api/account/me", "GET").description).toContain(
      "login session or governance session (a governance session serves wherever a login session does)",
    );
  });

  test("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  test("declares every status each endpoint can answer, with the error codes behind it", () => {
    for (const { endpoint } of routeList) {
      const responses = operationOf(endpoint.path, endpoint.method).responses;
      // 431 is the HTTP server's own answer to a request line or headers over its limit.
      const expected = [String(endpoint.successStatus ?? 200), ...[...errorCodesOf(endpoint)].map((code) => String(ERROR_TABLE[code].status)), "431"];
      expect(Object.keys(responses).sort()).toEqual([...new Set(expected)].sort());
      for (const code of errorCodesOf(endpoint)) expect(responses[ERROR_TABLE[code].status].description).toContain(code);
    }
    expect(Object.keys(operationOf("/api/playbook_aggregation_operations/:operation_id", "GET").responses)).toContain("404");
    expect(Object.keys(operationOf("/api/playbook_aggregation_operations", "POST").responses)).toContain("409");
    expect(Object.keys(operationOf("/api/admin/cache/invalidate", "POST").responses)).toContain("403");
    expect(Object.keys(operationOf("/api/search", "POST").responses)).toEqual(expect.arrayContaining(["501", "503", "504"]));
  });

  test("a query string longer than the HTTP server takes answers 431, which every operation declares", async () => {
    const server = Bun.serve({ port: 0, fetch: (request) => svc.app.handle(request) });
    try {
      for (const path of ["/api/get_all_profiles", "/api/account/oidc/callback"]) {
        const response = await fetch(`http://127.0.0.1:${server.port}${path}?user_id=${"x".repeat(70_000)}`);
        expect(response.status).toBe(431);
        expect(operationOf(path, "GET").responses["431"]).toBeDefined();
      }
    } finally {
      server.stop(true);
    }
  });

  test("an optional body field accepts null, as the server reads it as omitted; a required one does not", async () => {
    const body = operationOf("/api/get_agent_playbooks", "POST").requestBody.content["application/json"].schema;
    expect(body.properties.end_time.anyOf).toContainEqual({ type: "null" });
    const publish = operationOf("/api/publish_interaction", "POST").requestBody.content["application/json"].schema;
    expect(JSON.stringify(publish.properties.user_id)).not.toContain('"null"');
    const accepted = await svc.call("POST", "/api/get_agent_playbooks", { end_time: null, start_time: null });
    expect(accepted.status).toBe(200);
  });

  test("Allow names the methods of the most specific path: the stop endpoint is not an experiment id", async () => {
    for (const method of ["OPTIONS", "GET"]) {
      const response = await svc.app.handle(new Request("http://localhost/api/retrieval_experiments/stop", { method }));
      if (method === "OPTIONS") expect(response.status).toBe(405);
      if (response.status === 405) expect(response.headers.get("allow")).toBe("POST");
    }
    expect(Object.keys(doc.paths["/api/retrieval_experiments/stop"])).toEqual(["post"]);
  });

  test("endpoints without input declare no body; the others declare a required JSON body or parameters", () => {
    for (const { endpoint } of routeList) {
      const operation = operationOf(endpoint.path, endpoint.method);
      const onlyPathParams =
        endpoint.path.includes(":") && Object.keys((endpoint.input as { shape?: object }).shape ?? {}).every((name) => endpoint.path.includes(`:${name}`));
      if (endpoint.input === NoInput || endpoint.method === "GET" || onlyPathParams) expect(operation.requestBody).toBeUndefined();
      else expect(operation.requestBody.required).toBe(true);
    }
    expect(operationOf("/api/delete_all_profiles", "DELETE").requestBody).toBeUndefined();
  });

  test("states the rules JSON Schema can express: patterns, bounds, one-of-two", () => {
    const publish = operationOf("/api/publish_interaction", "POST").requestBody.content["application/json"].schema;
    expect(new RegExp(notNull(publish.properties.source).pattern).test("my-app.v2")).toBe(true);
    expect(new RegExp(notNull(publish.properties.source).pattern).test("Not Valid")).toBe(false);
    const search = operationOf("/api/search", "POST").requestBody.content["application/json"].schema;
    expect(notNull(search.properties.top_k)).toMatchObject({ minimum: 1, maximum: 100 });
    const addPlaybook = operationOf("/api/add_user_playbook", "POST").requestBody.content["application/json"].schema;
    expect(addPlaybook.properties.user_playbooks.items.anyOf).toEqual([
      { required: ["content"], properties: { content: { pattern: "\\S" } } },
      { required: ["trigger"], properties: { trigger: { pattern: "\\S" } } },
    ]);
    const getProfiles = operationOf("/api/get_profiles", "POST").requestBody.content["application/json"].schema;
    expect(getProfiles.description).toContain("end_time must be after start_time");
  });

  test("the rules it states are the rules the service enforces", async () => {
    const bad = await svc.call("POST", "/api/publish_interaction", {
      user_id: "u",
      session_id: "s",
      source: "Not Valid",
      interaction_data_list: [{ content: "hi" }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain("source");
    const blank = await svc.call("POST", "/api/add_user_playbook", { user_playbooks: [{ user_id: "u", content: " ", trigger: "" }] });
    expect(blank.status).toBe(422);
  });
});
