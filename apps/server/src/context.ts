import type { CoreDeps, IdempotencyKey, RequestTimings } from "@als/core";
import type { Scope } from "@als/db";
import type { AccountServices, AuthMode, Principal } from "@als/identity";

/**
 * What a handler knows about the request it serves: who (the principal the credential resolved
 * to), where (the organisation and project), and its correlation id. Handlers never read headers.
 */
export interface RequestContext {
  deps: CoreDeps;
  principal: Principal;
  scope: Scope;
  correlationId: string;
  /** The client's address (TRUSTED_PROXIES decides whether forwarded headers name it); null in process. */
  clientAddress: string | null;
  /** Whether the request came straight from the server's own machine (see fromThisMachine). */
  fromThisMachine: boolean;
  /** `required`: the callers are tenants of a hosted service, who are never shown the server's own paths. */
  authMode: AuthMode;
  /** Mail, third-party sign-in and the public address, for the account endpoints. */
  accounts: AccountServices;
  /** This request's stages and their durations (Server-Timing, debug log); handlers hand it to what they measure. */
  timings: RequestTimings;
  /** The request's Idempotency-Key, on an endpoint that takes one (see idempotencyKeyFrom). */
  idempotencyKey?: IdempotencyKey;
}

/** What the credential resolver needs of a request, taken from it before any handler runs. */
export interface IncomingRequest {
  correlationId: string;
  /** The Authorization header, if sent. */
  authorization: string | null;
  /** X-Service-Project, if sent. */
  project: string | null;
  /** Idempotency-Key, if sent. */
  idempotencyKey: string | null;
  /** The client's IP address when the request came over a socket (null in process): sign-in limits. */
  clientAddress: string | null;
  /** A loopback peer and no forwarding header: a client on this machine, not a proxy in front of us. */
  fromThisMachine: boolean;
}
