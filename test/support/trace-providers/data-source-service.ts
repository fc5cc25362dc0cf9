import type { Llm } from "@als/ai";
import { startTestService } from "../service.ts";
import { createTenant, type Tenant } from "../tenants.ts";
import { type BraintrustData, startBraintrustServer } from "./braintrust-server.ts";
import { type LangfuseBehaviour, type LangfuseData, startLangfuseServer } from "./langfuse-server.ts";
import { type LangsmithBehaviour, type LangsmithData, startLangsmithServer } from "./langsmith-server.ts";

/**
 * The service in hosted mode with the three providers' protocol servers standing in for their
 * hosts (Braintrust in us, Langfuse in `langfuseRegion`, LangSmith in us), the LLM if given, an
 * owner whose project holds the connections and a stranger of another organisation. `traffic`:
 * generated traffic served instead of the fixtures (synthetic-traffic.ts).
 */
export async function startDataSourceService(
  name: string,
  options: {
    langfuseRegion?: string;
    llm?: Llm;
    traffic?: { a: BraintrustData; b: LangfuseData; c: LangsmithData };
    /** Where the deployments differ from the current APIs (an older Langfuse or LangSmith). */
    behaviour?: { b?: LangfuseBehaviour; c?: LangsmithBehaviour };
  } = {},
) {
  const langfuseRegion = options.langfuseRegion ?? "us";
  const servers = {
    a: await startBraintrustServer(options.traffic?.a),
    b: await startLangfuseServer(options.traffic?.b, options.behaviour?.b),
    c: await startLangsmithServer(options.traffic?.c, options.behaviour?.c),
  };
  const svc = await startTestService({
    authMode: "required",
    ...(options.llm && { llm: options.llm }),
    dataSources: {
      providerBaseUrls: {
        "trace_provider_a:us": servers.a.url,
        [`trace_provider_b:${langfuseRegion}`]: servers.b.url,
        "trace_provider_c:us": servers.c.url,
      },
    },
  });
  const owner: Tenant = await createTenant(svc.deps, `${name}-owner`);
  const stranger: Tenant = await createTenant(svc.deps, `${name}-stranger`);
  return {
    svc,
    servers,
    owner,
    stranger,
    async close() {
      await svc.close();
      await Promise.all(Object.values(servers).map((server) => server.close()));
    },
  };
}

export type DataSourceService = Awaited<ReturnType<typeof startDataSourceService>>;
