/**
 * A failure the operator can fix (a bad argument, an organisation that does not exist, a running
 * embedded server): printed as `als: <message>` on stderr with exit code 1, never with a stack.
 */
export class CliError extends Error {
  override readonly name = "CliError";
}
