import { ClientError } from "@als/client";

/** The service's message for a failed call, with the fields a 422 names. */
export function describeError(error: unknown): string {
  if (error instanceof ClientError) {
    const fields = error.issues.map((issue) => `${issue.loc.join(".")}: ${issue.msg}`).join("; ");
    return fields ? `${error.message} (${fields})` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A failure, announced to screen readers as it appears. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  );
}
