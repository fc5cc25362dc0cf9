import { endpoints } from "@als/contract";
import { markStallNotified } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.markStallNotified, {
  async handle({ deps, scope }) {
    return { success: true, notified_in_cc: await markStallNotified(deps, scope) };
  },
});
