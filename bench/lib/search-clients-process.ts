/** The search clients of bench/unified-search.ts --clients process: a ClientJob on stdin, its ClientRun as JSON on stdout. */
import { type ClientJob, runClients, searchClient } from "./search-clients.ts";

const job = JSON.parse(await new Response(Bun.stdin.stream()).text()) as ClientJob;
const search = searchClient(job.url, job.users, job.topK);
for (const query of job.warmup ?? []) await search(query);
const run = await runClients(search, job.queries, job.concurrency, job.maxSeconds);
process.stdout.write(JSON.stringify(run));
