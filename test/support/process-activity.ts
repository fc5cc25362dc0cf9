import { ProcessActivity } from "@als/core";

let shared: ProcessActivity | undefined;

/** What the test process measures of itself: one, as a server process has, shared by every test file's apps and pools. */
export function sharedProcessActivity(): ProcessActivity {
  shared ??= new ProcessActivity();
  return shared;
}
