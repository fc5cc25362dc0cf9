/**
 * The clients of bench/unified-search.ts: POST /api/search from `concurrency` clients, each sending
 * its next request when the previous answered. They run in the bench's own process (sharing the
 * server's event loop) or, with --clients process, in a process of their own
 * (search-clients-process.ts), as an agent calling the service would.
 */

/** One answered request, as the client saw it. */
export interface SearchAnswer {
  elapsed: number;
  status: number;
  /** Results per entity type: profiles, user playbooks, agent playbooks. */
  counts: [number, number, number];
  /** The server's Server-Timing header. */
  timing: string | null;
}

export interface ClientRun {
  answers: SearchAnswer[];
  /** Requests sent (answered or not). */
  requests: number;
  wallMillis: number;
  cappedAt?: number;
}

/** What a client process is given on its stdin. */
export interface ClientJob {
  url: string;
  users: string[];
  topK: number;
  queries: string[];
  concurrency: number;
  maxSeconds: number;
  /** Sent first, one at a time and untimed: a new process and its connection are cold. */
  warmup?: string[];
}

/** A search of `url` for a query, each request for the next of `users` (a stride through them, so neighbours differ). */
export function searchClient(url: string, users: readonly string[], topK: number): (query: string) => Promise<SearchAnswer> {
  let userCursor = 0;
  const nextUser = () => users[(userCursor++ * 7_919) % users.length]!;
  return async (query) => {
    const t = performance.now();
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, user_id: nextUser(), top_k: topK, search_mode: "hybrid" }),
    });
    const payload = (await response.json()) as { success?: boolean; profiles?: unknown[]; user_playbooks?: unknown[]; agent_playbooks?: unknown[] };
    const elapsed = performance.now() - t;
    const ok = response.status === 200 && payload.success === true;
    const counts: [number, number, number] = [payload.profiles?.length ?? 0, payload.user_playbooks?.length ?? 0, payload.agent_playbooks?.length ?? 0];
    return { elapsed, status: ok ? 200 : response.status, counts, timing: response.headers.get("server-timing") };
  };
}

/** `queries.length` requests (at most) from `concurrency` clients; no request starts after `maxSeconds`. */
export async function runClients(
  search: (query: string) => Promise<SearchAnswer>,
  queries: readonly string[],
  concurrency: number,
  maxSeconds: number,
): Promise<ClientRun> {
  const answers: SearchAnswer[] = [];
  let next = 0;
  let cappedAt: number | undefined;
  const started = performance.now();
  const client = async () => {
    while (next < queries.length) {
      if (performance.now() - started > maxSeconds * 1000) {
        cappedAt = maxSeconds;
        return;
      }
      answers.push(await search(queries[next++]!));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { answers, requests: next, wallMillis: performance.now() - started, ...(cappedAt ? { cappedAt } : {}) };
}

/** Runs a job in a process of its own (search-clients-process.ts) and returns what its clients saw. */
export async function runClientsInProcess(job: ClientJob): Promise<ClientRun> {
  const child = Bun.spawn(["bun", new URL("./search-clients-process.ts", import.meta.url).pathname], {
    stdin: new TextEncoder().encode(JSON.stringify(job)),
    stdout: "pipe",
    stderr: "inherit",
  });
  const [output, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (exitCode !== 0) throw new Error(`the search clients' process exited with ${exitCode}`);
  return JSON.parse(output) as ClientRun;
}
