import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { CliError } from "./cli-error.ts";

/** A publish the checkpoint says was sent and not yet answered: resent first, with the same key. */
export interface SentBatch {
  batch: number;
  lines: number[];
}

type CheckpointRecord =
  | { import_id: string; url: string; started_at: string }
  | { send: number; lines: number[] }
  | { done: number; lines: number[]; request_id: string }
  | { refused: number; message: string; batch: number | null }
  | { split: number };

/**
 * What an import did, kept beside its input (`<input>.als-checkpoint`) so a second run goes on where
 * the first stopped. A JSON line is appended (and flushed to the disk) before each publish is sent
 * and after it is answered. A publish sent but never recorded as answered may have been stored, so
 * it is sent again with its Idempotency-Key (`<import_id>:<batch>`): the service answers a repeat
 * with the first answer instead of storing it twice (within the 24 hours it keeps keys).
 */
export class ImportCheckpoint {
  readonly done = new Set<number>();
  readonly refused = new Map<number, string>();
  private readonly sent = new Map<number, number[]>();
  private nextBatch = 1;

  private constructor(
    readonly path: string,
    readonly importId: string,
    private readonly fd: number,
  ) {}

  /** The checkpoint of `inputPath`, read back when it exists, else started for an import into `url`. */
  static open(inputPath: string, url: string): ImportCheckpoint {
    const path = `${inputPath}.als-checkpoint`;
    const records = existsSync(path) ? readRecords(path) : [];
    const header = records[0];
    if (header !== undefined && !("import_id" in header)) throw new CliError(`${path} is not an import checkpoint; move it away to import ${inputPath} again`);
    if (header !== undefined && header.url !== url) {
      throw new CliError(`${path} records an import into ${header.url}, not ${url}: pass --url ${header.url} to resume it, or delete it to import again`);
    }
    const importId = header?.import_id ?? crypto.randomUUID();
    const checkpoint = new ImportCheckpoint(path, importId, openSync(path, "a"));
    if (header === undefined) checkpoint.append({ import_id: importId, url, started_at: new Date().toISOString() });
    for (const record of records.slice(1)) checkpoint.replay(record);
    return checkpoint;
  }

  /** Publishes sent and never answered, in the order they were sent (a split one is not: its halves stand for it). */
  unanswered(): SentBatch[] {
    return [...this.sent].map(([batch, lines]) => ({ batch, lines }));
  }

  /** Lines a publish of an earlier run holds: not planned again. */
  claimed(): Set<number> {
    return new Set([...this.sent.values()].flat());
  }

  keyOf(batch: number): string {
    return `${this.importId}:${batch}`;
  }

  /** Numbers a new publish and records it as sent, before it is. */
  send(lines: number[]): number {
    const batch = this.nextBatch++;
    this.write({ send: batch, lines });
    return batch;
  }

  answered(batch: number, lines: number[], requestId: string): void {
    this.write({ done: batch, lines, request_id: requestId });
  }

  /** The service refused the line (or it is no line of the format: batch null). */
  refuse(line: number, message: string, batch: number | null): void {
    this.write({ refused: line, message, batch });
  }

  /** The publish was refused as a whole; its halves are sent as publishes of their own. */
  split(batch: number): void {
    this.write({ split: batch });
  }

  close(): void {
    closeSync(this.fd);
  }

  private write(record: CheckpointRecord): void {
    this.append(record);
    this.replay(record);
  }

  private append(record: CheckpointRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    // A record lost with the machine would make a stored publish look unsent: flushed before anything is sent.
    fdatasyncSync(this.fd);
  }

  private replay(record: CheckpointRecord): void {
    if ("send" in record) {
      this.sent.set(record.send, record.lines);
      this.nextBatch = Math.max(this.nextBatch, record.send + 1);
    } else if ("done" in record) {
      this.sent.delete(record.done);
      for (const line of record.lines) this.done.add(line);
    } else if ("refused" in record) {
      if (record.batch !== null) this.sent.delete(record.batch);
      this.refused.set(record.refused, record.message);
    } else if ("split" in record) {
      this.sent.delete(record.split);
    }
  }
}

/** The records of a checkpoint; a last line cut short by a kill is dropped (its write never finished). */
function readRecords(path: string): CheckpointRecord[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const records: CheckpointRecord[] = [];
  for (const [index, text] of lines.entries()) {
    if (text === "") continue;
    try {
      records.push(JSON.parse(text) as CheckpointRecord);
    } catch {
      if (index >= lines.length - 2) break;
      throw new CliError(`${path}: line ${index + 1} is not a checkpoint record; move the file away to import again`);
    }
  }
  return records;
}
