import { readFileSync } from "node:fs";
import { type Client, ClientError } from "@als/client";
import { formatLoc } from "@als/contract";
import { CliError } from "./cli-error.ts";
import { ImportCheckpoint } from "./import-checkpoint.ts";
import { type ImportLine, isRefusal, type LineRefusal, parseImportLine } from "./parse-import-line.ts";
import { planImportBatches, publishBodyOf } from "./plan-import-batches.ts";
import { ProgressBar, type ProgressOutput } from "./progress-bar.ts";

export interface ImportOptions {
  file: string;
  /** Where the service answers: recorded in the checkpoint, so a resume goes to the same one. */
  url: string;
  client: Client;
  batchSize: number;
  concurrency: number;
  output: ProgressOutput;
}

export interface ImportSummary {
  lines: number;
  interactions: number;
  /** Interactions stored by this run and by earlier runs of the same checkpoint. */
  published: number;
  publishedNow: number;
  refused: LineRefusal[];
  checkpoint: string;
  seconds: number;
}

interface Batch {
  /** The checkpoint's number, set once it is recorded as sent. */
  number: number | null;
  lines: ImportLine[];
}

/** Answers that refuse what was sent, not who sent it or when: the line is reported and the import goes on. */
const REFUSING_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 413, 422]);

/**
 * Publishes a JSONL file through publish_interaction in batches (runs of lines of one request),
 * `concurrency` at a time but one at a time per user, so a user's turns arrive in file order. A
 * batch the service refuses is halved until each refused line stands alone, so one bad line costs
 * nothing else; the refused lines are reported with the service's message. Interrupted, it is run
 * again with the same file: ImportCheckpoint says what was stored, and resends what may have been.
 */
export async function importInteractions(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const { lines, refusals } = readImportFile(options.file);
  const checkpoint = ImportCheckpoint.open(options.file, options.url);
  try {
    for (const refusal of refusals) if (!checkpoint.refused.has(refusal.line)) checkpoint.refuse(refusal.line, refusal.message, null);
    const byLine = new Map(lines.map((line) => [line.line, line]));
    const count = (numbers: Iterable<number>) => [...numbers].reduce((sum, line) => sum + (byLine.get(line)?.interactions.length ?? 0), 0);
    const total = lines.reduce((sum, line) => sum + line.interactions.length, 0);
    const finished = new Set([...checkpoint.done, ...checkpoint.refused.keys()]);
    const publishedBefore = count(checkpoint.done);
    const progress = new ProgressBar(options.output, "import", "interactions", total, count(finished));

    const queue: Batch[] = checkpoint.unanswered().map(({ batch, lines: numbers }) => ({ number: batch, lines: linesOf(numbers, byLine, options.file) }));
    const claimed = checkpoint.claimed();
    const open = lines.filter((line) => !finished.has(line.line) && !claimed.has(line.line));
    for (const lines of planImportBatches(open, options.batchSize)) queue.push({ number: null, lines });

    await runQueue(queue, options.concurrency, async (batch) => {
      const outcome = await publishBatch(options.client, checkpoint, batch);
      if (outcome.kind === "split") return outcome.halves;
      progress.advance(batch.lines.reduce((sum, line) => sum + line.interactions.length, 0));
      return [];
    });
    progress.finish();
    const published = count(checkpoint.done);
    return {
      lines: lines.length + refusals.length,
      interactions: total,
      published,
      publishedNow: published - publishedBefore,
      refused: [...checkpoint.refused].map(([line, message]) => ({ line, message })).sort((a, b) => a.line - b.line),
      checkpoint: checkpoint.path,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    checkpoint.close();
  }
}

function readImportFile(path: string): { lines: ImportLine[]; refusals: LineRefusal[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lines: ImportLine[] = [];
  const refusals: LineRefusal[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const parsed = parseImportLine(raw, index + 1);
    if (parsed === null) continue;
    if (isRefusal(parsed)) refusals.push(parsed);
    else lines.push(parsed);
  }
  return { lines, refusals };
}

function linesOf(numbers: number[], byLine: ReadonlyMap<number, ImportLine>, file: string): ImportLine[] {
  return numbers.map((number) => {
    const line = byLine.get(number);
    if (line === undefined) throw new CliError(`${file} changed since the import began: line ${number}, sent before, is no longer a line to import`);
    return line;
  });
}

type PublishOutcome = { kind: "stored" } | { kind: "refused" } | { kind: "split"; halves: Batch[] };

async function publishBatch(client: Client, checkpoint: ImportCheckpoint, batch: Batch): Promise<PublishOutcome> {
  const numbers = batch.lines.map((line) => line.line);
  batch.number ??= checkpoint.send(numbers);
  try {
    const answer = await client.interactions.publish(publishBodyOf(batch.lines) as Parameters<Client["interactions"]["publish"]>[0], {
      idempotencyKey: checkpoint.keyOf(batch.number),
    });
    checkpoint.answered(batch.number, numbers, answer.request_id);
    return { kind: "stored" };
  } catch (error) {
    if (!(error instanceof ClientError) || !REFUSING_STATUSES.has(error.status)) throw stopError(error, numbers);
    if (batch.lines.length === 1) {
      checkpoint.refuse(numbers[0]!, describeRefusal(error), batch.number);
      return { kind: "refused" };
    }
    checkpoint.split(batch.number);
    const half = Math.ceil(batch.lines.length / 2);
    return {
      kind: "split",
      halves: [
        { number: null, lines: batch.lines.slice(0, half) },
        { number: null, lines: batch.lines.slice(half) },
      ],
    };
  }
}

/** The API's answer, as the summary shows it: the status, the code and the fields it names. */
function describeRefusal(error: ClientError): string {
  const detail = error.issues.length > 0 ? error.issues.map((issue) => `${formatLoc(issue.loc)}: ${issue.msg}`).join("; ") : error.message;
  return `${error.status} ${error.code}: ${detail}`;
}

/** A failure that is not one line's (a bad key, the service gone): the import stops, resumable. */
function stopError(error: unknown, lines: number[]): CliError {
  const why = error instanceof ClientError ? `${error.status === 0 ? "" : `${error.status} `}${error.code}: ${error.message}` : String(error);
  return new CliError(`publishing lines ${lines[0]}–${lines.at(-1)} failed (${why}); nothing was lost: run the same command again to resume`);
}

/**
 * Runs `work` over the queue with at most `concurrency` batches under way and never two of one user
 * at once; what work returns goes to the front of the queue (a refused batch's halves). The first
 * failure stops new work, waits for what is under way, and is thrown.
 */
async function runQueue(queue: Batch[], concurrency: number, work: (batch: Batch) => Promise<Batch[]>): Promise<void> {
  const busyUsers = new Set<string>();
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  const userOf = (batch: Batch) => JSON.stringify(batch.lines[0]!.request.user_id ?? null);
  for (;;) {
    while (failure === null && running.size < concurrency) {
      const index = queue.findIndex((batch) => !busyUsers.has(userOf(batch)));
      if (index === -1) break;
      const [batch] = queue.splice(index, 1) as [Batch];
      const user = userOf(batch);
      busyUsers.add(user);
      const task: Promise<void> = work(batch)
        .then((more) => void queue.unshift(...more))
        .catch((error) => {
          failure ??= error;
        })
        .finally(() => {
          busyUsers.delete(user);
          running.delete(task);
        });
      running.add(task);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }
  if (failure !== null) throw failure;
}
