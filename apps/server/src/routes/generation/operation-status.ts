import { endpoints } from "@als/contract";
import { getOperationStatus } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.operationStatus, {
  async handle({ deps, scope }, input) {
    const status = await getOperationStatus(deps, scope, input.service_name);
    return {
      success: true,
      operation_status: status,
      msg: status ? `The latest ${input.service_name} is ${status.status}` : `No ${input.service_name} has run in this project`,
    };
  },
});
