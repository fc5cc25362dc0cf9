import { type Endpoint, type Endpoints, endpoints } from "@als/contract";
import type { z } from "zod";
import { type CallOptions, type ClientSettings, callEndpoint, type FetchFunction } from "./call-endpoint.ts";

export interface ClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8081`; a path prefix is kept. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default: the global fetch. Tests pass one that hands the Request to the app in process. */
  fetch?: FetchFunction;
  /** How long an attempt may take at endpoints that do not declare their own timeoutMs. */
  timeoutMs?: number;
  /** Further attempts of an idempotent call (GET, PUT, DELETE) after a network error, 429, 502, 503 or 504. */
  retries?: number;
  /** Parse each success body through the endpoint's output schema (a ClientError `invalid_response` when it does not fit). */
  validateResponses?: boolean;
}

/** A little past the server's default backstop (60 s), so the server's 504 arrives before the client gives up. */
const DEFAULT_TIMEOUT_MS = 65_000;
const DEFAULT_RETRIES = 2;

/** One endpoint as a method: its input as the schema accepts it, its result as the schema gives it; no input needed when `{}` is valid. */
export type EndpointCall<E extends Endpoint> =
  Record<string, never> extends z.input<E["input"]>
    ? (input?: z.input<E["input"]>, options?: CallOptions) => Promise<z.output<E["output"]>>
    : (input: z.input<E["input"]>, options?: CallOptions) => Promise<z.output<E["output"]>>;

/** The input of `client[R][A]` as the schema accepts it, for code that builds it apart from the call. */
export type ClientInput<R extends keyof Endpoints, A extends keyof Endpoints[R]> = Endpoints[R][A] extends Endpoint ? z.input<Endpoints[R][A]["input"]> : never;

/** The typed client: `endpoints` with every declaration turned into its call (`client.profiles.add(input)`). */
export type Client = { [R in keyof Endpoints]: { [A in keyof Endpoints[R]]: Endpoints[R][A] extends Endpoint ? EndpointCall<Endpoints[R][A]> : never } };

/** The client of the REST contract, built from the endpoint declarations of @als/contract. */
export function createClient(options: ClientOptions): Client {
  const settings = clientSettings(options);
  const methodsOf = (resource: Record<string, Endpoint>) =>
    Object.fromEntries(
      Object.entries(resource).map(([action, endpoint]) => [action, (input?: unknown, call?: CallOptions) => callEndpoint(settings, endpoint, input, call)]),
    );
  return Object.fromEntries(Object.entries(endpoints).map(([resource, declared]) => [resource, methodsOf(declared)])) as Client;
}

/** createClient's options with their defaults applied. */
export function clientSettings(options: ClientOptions): ClientSettings {
  return {
    baseUrl: options.baseUrl,
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    // Called through a wrapper: a browser's fetch called as a method of another object throws "Illegal invocation".
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retries: options.retries ?? DEFAULT_RETRIES,
    validateResponses: options.validateResponses ?? false,
  };
}
