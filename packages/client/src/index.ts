export type { AppErrorShape, AppRouter } from "./app-router.ts";
export type { CallOptions, FetchFunction } from "./call-endpoint.ts";
export { ClientError, type ClientSideCode, type ErrorResponseBody } from "./client-error.ts";
export { type Client, type ClientInput, type ClientOptions, createClient, type EndpointCall } from "./create-client.ts";
export { openEndpointStream } from "./open-endpoint-stream.ts";
