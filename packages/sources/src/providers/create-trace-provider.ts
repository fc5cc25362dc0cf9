import { braintrustProvider } from "./braintrust-provider.ts";
import { langfuseProvider } from "./langfuse-provider.ts";
import { langsmithProvider } from "./langsmith-provider.ts";
import type { ProviderCredentials, ProviderLocation, TraceProvider } from "./trace-provider.ts";

/** The adapter of a connection's provider, reading its region's host with its credentials. */
export function createTraceProvider(location: ProviderLocation, credentials: ProviderCredentials, now: () => number): TraceProvider {
  switch (location.provider) {
    case "trace_provider_a":
      return braintrustProvider(location.baseUrl, credentials.api_key, now);
    case "trace_provider_b":
      return langfuseProvider(location.baseUrl, credentials.public_key ?? "", credentials.api_key, now);
    case "trace_provider_c":
      return langsmithProvider(location.baseUrl, credentials.api_key, credentials.workspace_id, now);
  }
}
