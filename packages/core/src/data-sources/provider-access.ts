import { AppError, type DataSourceProvider } from "@als/contract";
import type { ConnectionRecord } from "@als/db";
import type { ExternalProject, ProviderCredentials, TraceProvider } from "@als/sources";
import { createTraceProvider, providerBaseUrl, TraceProviderError } from "@als/sources";
import type { CoreDeps } from "../deps.ts";
import { openCredentials } from "./credential-seal.ts";

/** The adapter of a provider region with these credentials. */
export function providerFor(deps: CoreDeps, provider: DataSourceProvider, region: string, credentials: ProviderCredentials): TraceProvider {
  const baseUrl = providerBaseUrl(provider, region, deps.dataSources?.providerBaseUrls);
  return createTraceProvider({ provider, region, baseUrl }, credentials, deps.now);
}

/** The adapter of a stored connection, its credentials unsealed for this use only. */
export async function providerOfConnection(deps: CoreDeps, connection: ConnectionRecord): Promise<TraceProvider> {
  const credentials = await openCredentials(deps, connection.connection_id, connection.sealed_credentials);
  return providerFor(deps, connection.provider as DataSourceProvider, connection.region, credentials);
}

/**
 * The projects a credential reaches, which is also how it is checked. `credential` says whose it
 * is: a credential the request sent and the provider refuses is a 422 naming `api_key`; a stored
 * one, a 503 telling the caller to rotate it. A rate limit or an unreachable provider is a 503
 * `provider_unavailable`, with retry_at when the provider said when.
 */
export async function discoverWith(provider: TraceProvider, credential: "sent" | "stored"): Promise<ExternalProject[]> {
  try {
    return await provider.discoverProjects();
  } catch (error) {
    throw providerFailure(error, credential);
  }
}

function providerFailure(error: unknown, credential: "sent" | "stored"): unknown {
  if (!(error instanceof TraceProviderError)) return error;
  if (error.kind === "credential_refused" && credential === "sent") {
    return AppError.validation([{ loc: ["body", "api_key"], msg: "the provider refused this credential", type: "credential_refused" }]);
  }
  if (error.kind === "credential_refused") {
    return new AppError("provider_unavailable", "the provider refuses the connection's stored credential: rotate it (PUT .../credential)", {
      reason: "credential_refused",
    });
  }
  return new AppError("provider_unavailable", `the trace provider cannot be read now: ${error.message}`, {
    reason: error.kind,
    ...(error.retryAt !== null && { retry_at: error.retryAt }),
  });
}
