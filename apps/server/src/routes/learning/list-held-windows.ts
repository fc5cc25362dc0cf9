import { endpoints } from "@als/contract";
import { heldWindows } from "@als/db";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.listHeldWindows, {
  async handle({ deps, scope }, input) {
    return { success: true, held_windows: await heldWindows.listHeldWindows(deps.db, scope, input.user_id ?? null) };
  },
});
