import { afterAll, beforeAll } from "bun:test";
import { startScriptedLlm } from "./scripted-llm.ts";
import { startTestService, type TestService } from "./service.ts";

/**
 * A test service whose LLM is the scripted one, started before the file's tests and closed after
 * them. Read `svc` and `scripted` inside tests (they are set by then).
 */
export function useScriptedService() {
  const handle = {} as { svc: TestService; scripted: Awaited<ReturnType<typeof startScriptedLlm>> };
  beforeAll(async () => {
    handle.scripted = await startScriptedLlm();
    handle.svc = await startTestService({ llm: handle.scripted.llm });
  });
  afterAll(async () => {
    await handle.svc.close();
    await handle.scripted.server.close();
  });
  return handle;
}
