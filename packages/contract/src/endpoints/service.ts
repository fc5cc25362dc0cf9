import { NoInput } from "../common.ts";
import { MyConfigResponse, WhoamiResponse } from "../config.ts";
import { defineResource } from "../endpoint.ts";

export const serviceEndpoints = defineResource("service", {
  myConfig: {
    method: "GET",
    path: "/api/my_config",
    summary: "The raw storage settings, credentials included: treat the response as secret (a credential of a hosted organisation gets null)",
    input: NoInput,
    output: MyConfigResponse,
  },
  whoami: {
    method: "GET",
    path: "/api/whoami",
    summary: "The caller's organisation and where its data lives, credentials masked",
    input: NoInput,
    output: WhoamiResponse,
  },
});
