/** PostgreSQL binds at most this many parameters in one statement. */
const MAX_PARAMETERS = 65_535;
/** Room for the parameters a statement binds once (scope, time). */
const SHARED_PARAMETERS = 16;

/**
 * Runs a bulk write as consecutive statements each within the parameter limit, on the caller's
 * connection: inside the caller's transaction the write stays all or nothing. Results come back in
 * input order.
 */
export async function inStatements<T, R>(rows: readonly T[], parametersPerRow: number, write: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const rowsPerStatement = Math.floor((MAX_PARAMETERS - SHARED_PARAMETERS) / parametersPerRow);
  const results: R[] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) results.push(...(await write(rows.slice(start, start + rowsPerStatement))));
  return results;
}
