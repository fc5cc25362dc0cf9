import type { Llm } from "@als/ai";
import { startTestService } from "../service.ts";
import { createTenant, type Tenant } from "../tenants.ts";
import { startBraintrustServer } from "./braintrust-server.ts";
import { startLangfuseServer } from "./langfuse-server.ts";
import { startLangsmithServer } from "./langsmith-server.ts";

/**
 * The service in hosted mode with the three providers' protocol servers standing in for their
 * hosts (Braintrust in us, Langfuse in `langfuseRegion`, LangSmith in us), the LLM if given, an
 * owner whose project holds the connections and a stranger of another organisation.
 */
export async function startDataSourceService(name: string, options: { langfuseRegion?: string; llm?: Llm } = {}) {
  const langfuseRegion = options.langfuseRegion ?? "us";
  const servers = { a: await startBraintrustServer(), b: await startLangfuseServer(), c: await startLangsmithServer() };
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
