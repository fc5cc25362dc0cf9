import type { ProviderName } from "./trace-provider.ts";

/**
 * The public API host of each provider region (the contract's connection-provider table). These
 * are the only hosts a connection reaches: private provider endpoints are unsupported, so no
 * request names a host of its own.
 */
export const PROVIDER_HOSTS: Record<ProviderName, Record<string, string>> = {
  // Braintrust
  trace_provider_a: { us: "https://api.braintrust.dev" },
  // Langfuse Cloud
  trace_provider_b: {
    us: "https://us.cloud.langfuse.com",
    eu: "https://cloud.langfuse.com",
    jp: "https://jp.cloud.langfuse.com",
    "hipaa-us": "https://hipaa.cloud.langfuse.com",
  },
  // LangSmith
  trace_provider_c: { us: "https://api.smith.langchain.com", eu: "https://eu.api.smith.langchain.com" },
};

/** The credential fields each provider takes, beyond `api_key` which all need. */
export const PROVIDER_CREDENTIAL_FIELDS: Record<ProviderName, { required: readonly string[]; optional: readonly string[] }> = {
  trace_provider_a: { required: ["api_key"], optional: [] },
  trace_provider_b: { required: ["api_key", "public_key"], optional: [] },
  trace_provider_c: { required: ["api_key"], optional: ["workspace_id"] },
};

/**
 * The host a connection of `provider` in `region` reads: the public one, or the operator's
 * override (TRACE_PROVIDER_BASE_URLS, `provider:region` → URL) that points tests at their
 * deterministic servers.
 */
export function providerBaseUrl(provider: ProviderName, region: string, overrides: Readonly<Record<string, string>> = {}): string {
  const override = overrides[`${provider}:${region}`];
  if (override !== undefined) return override;
  const host = PROVIDER_HOSTS[provider][region];
  if (host === undefined) throw new Error(`${provider} has no region ${region}`);
  return host;
}
