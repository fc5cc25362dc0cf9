/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI embeddings protocol, for testing the
 * OpenAI-compatible provider. Each text gets a fixed, deliberately unnormalized vector, and the
 * answer lists them in reverse so that the client has to order them by `index`.
 */
export interface PlannedAnswer {
  status?: number;
  /** Vector length to answer with instead of the requested `dimensions`. */
  dimensions?: number;
  delayMs?: number;
}

export interface ReceivedRequest {
  authorization: string | null;
  body: { model: string; input: string[]; dimensions: number };
}

export function vectorFor(text: string, dimensions: number): number[] {
  const seed = [...text].reduce((sum, char) => (sum * 31 + char.codePointAt(0)!) % 100_003, 7);
  return Array.from({ length: dimensions }, (_, d) => ((seed * (d + 3)) % 17) - 8 + 0.5);
}

export function startEmbeddingsServer() {
  const requests: ReceivedRequest[] = [];
  const plans: PlannedAnswer[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/embeddings") {
        return new Response("not found", { status: 404 });
      }
      const body = (await request.json()) as ReceivedRequest["body"];
      requests.push({ authorization: request.headers.get("authorization"), body });
      const plan = plans.shift() ?? {};
      if (plan.delayMs) await Bun.sleep(plan.delayMs);
      if (plan.status && plan.status !== 200) {
        return Response.json({ error: { message: `planned ${plan.status}` } }, { status: plan.status });
      }
      const data = body.input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: vectorFor(text, plan.dimensions ?? body.dimensions),
      }));
      return Response.json({ object: "list", model: body.model, data: data.reverse(), usage: { prompt_tokens: 1, total_tokens: 1 } });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    /** Answers for the next requests, in order; requests beyond them succeed. */
    plan: (...answers: PlannedAnswer[]) => plans.push(...answers),
    stop: () => server.stop(true),
  };
}
