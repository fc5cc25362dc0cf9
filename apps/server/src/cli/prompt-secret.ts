/**
 * Asks for a secret on the terminal with echo off, as `sudo` does; null when stdin is no terminal
 * (a script must send the secret on stdin instead). Enter ends it, Ctrl-C aborts the command.
 */
export function promptSecret(question: string): Promise<string | null> {
  const input = process.stdin;
  if (!input.isTTY) return Promise.resolve(null);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = (result: () => void) => {
      input.setRawMode(false);
      input.pause();
      input.removeListener("data", onData);
      process.stderr.write("\n");
      result();
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish(() => resolve(typed));
        if (char === "\u0003") return finish(() => reject(new Error("interrupted")));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on("data", onData);
  });
}
