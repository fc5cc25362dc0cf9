import { NoInput } from "../common.ts";
import { ConfigResponse, SetConfigRequest, SetConfigResponse, UpdateConfigRequest, UpdateConfigResponse } from "../config.ts";
import { defineResource } from "../endpoint.ts";

export const configEndpoints = defineResource("config", {
  update: {
    method: "POST",
    path: "/api/update_config",
    summary: "Replace some top-level fields of the project's configuration (nested objects whole), atomically",
    input: UpdateConfigRequest,
    output: UpdateConfigResponse,
    errors: ["conflict"],
  },
  get: {
    method: "GET",
    path: "/api/get_config",
    summary: "The project's configuration, every field at its value or default, with the offline_tuner_config overlay",
    input: NoInput,
    output: ConfigResponse,
  },
  set: {
    method: "POST",
    path: "/api/set_config",
    summary: "Replace the project's configuration: omitted fields return to their defaults; retrieval_experiment cannot change (409)",
    input: SetConfigRequest,
    output: SetConfigResponse,
    errors: ["conflict"],
  },
});
