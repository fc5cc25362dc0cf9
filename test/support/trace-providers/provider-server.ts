import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request a deterministic provider server received, for tests to check what the adapter sent. */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** One request and the reply the server gave it: what a check against the provider's definition reads. */
export interface Exchange {
  request: ReceivedRequest;
  reply: ProviderReply;
}

export interface ProviderReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type ProviderRoute = (request: ReceivedRequest) => ProviderReply;

/**
 * A trace provider stand-in on 127.0.0.1: `route` answers from fixtures as the provider's protocol
 * does. `rateLimitNext(n, retryAfter)` makes the next n requests answer 429 with that Retry-After,
 * as a provider's rate limit does; every request is kept in `received`.
 */
export async function startProviderServer(route: ProviderRoute) {
  const received: ReceivedRequest[] = [];
  const exchanges: Exchange[] = [];
  let limited: { remaining: number; retryAfter: string } = { remaining: 0, retryAfter: "0" };
  let delayMs = 0;
  let answering: { remaining: number; reply: ProviderReply } = { remaining: 0, reply: { status: 200, body: null } };
  const rateLimited = (): ProviderReply => {
    limited.remaining--;
    return { status: 429, body: { error: "rate limit exceeded" }, headers: { "retry-after": limited.retryAfter } };
  };
  const answered = (): ProviderReply => {
    answering.remaining--;
    return answering.reply;
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const request: ReceivedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    received.push(request);
    if (delayMs > 0) {
      const wait = delayMs;
      delayMs = 0;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const reply = limited.remaining > 0 ? rateLimited() : answering.remaining > 0 ? answered() : route(request);
    exchanges.push({ request, reply });
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    exchanges,
    rateLimitNext(count: number, retryAfter: string) {
      limited = { remaining: count, retryAfter };
    },
    /** The next `count` requests get `reply` instead of their answer: a provider refusing queries, an endpoint gone. */
    answerNext(count: number, reply: ProviderReply) {
      answering = { remaining: count, reply };
    },
    /** The next request is answered only after `ms`: a read in flight while a test kills the service. */
    delayNext(ms: number) {
      delayMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type ProviderServer = Awaited<ReturnType<typeof startProviderServer>>;
