/**
 * Follows a governance export bundle as its text arrives, without holding it: the head's `counts`
 * (rows of each section when the export began, so the total is known early) and how many rows of
 * the sections have gone by. The bundle is one JSON object: the head's fields, then one array per
 * section of row objects; a row ends where an object closes inside a section's array.
 */
export class ExportRowCounter {
  rows = 0;
  /** Sum of the head's counts, once the head went by. */
  total: number | null = null;
  private readonly stack: string[] = [];
  private inString = false;
  private escaped = false;
  /** The text up to the first section, kept until it is parsed for its counts. */
  private head: string | null = "";
  /** Where, in `head`, the last comma between the root object's fields is. */
  private lastRootComma = -1;

  feed(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const char = text[index]!;
      if (this.head !== null) this.head += char;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === "\\") this.escaped = true;
        else if (char === '"') this.inString = false;
        continue;
      }
      if (char === '"') this.inString = true;
      else if (char === "{" || char === "[") {
        if (char === "[" && this.stack.length === 1 && this.head !== null) this.readHead();
        this.stack.push(char);
      } else if (char === "}" || char === "]") {
        this.stack.pop();
        if (char === "}" && this.stack.length === 2 && this.stack[1] === "[") this.rows++;
      } else if (char === "," && this.stack.length === 1 && this.head !== null) {
        this.lastRootComma = this.head.length - 1;
      }
    }
  }

  /** The head ends at the comma before the first section's name: parsed as an object of its own. */
  private readHead(): void {
    const head = this.head!;
    this.head = null;
    try {
      const parsed = JSON.parse(`${head.slice(0, this.lastRootComma)}}`) as { counts?: Record<string, number> };
      this.total = Object.values(parsed.counts ?? {}).reduce((sum, count) => sum + count, 0);
    } catch {
      // A bundle of another version: rows are still counted, without a total.
    }
  }
}
