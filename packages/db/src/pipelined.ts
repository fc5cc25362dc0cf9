/** in_failed_sql_transaction: a statement refused only because an earlier one of its transaction failed. */
export const isAfterEarlierFailure = (error: unknown) => (error as { code?: unknown } | null)?.code === "25P02";

/**
 * Statements of one transaction sent together (pipelined): their results in order, or the failure
 * of the statement that failed first. The statements after a failed one are refused with
 * in_failed_sql_transaction, and their rejections can reach the caller before the cause's (one
 * socket read answers several statements, and their promises settle through different depths), so
 * `Promise.all` alone could answer a disk that filled up as an internal error.
 */
export async function pipelined<T extends readonly unknown[]>(statements: readonly [...T]): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(statements);
  const failures = settled.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
  if (failures.length > 0) throw failures.find((failure) => !isAfterEarlierFailure(failure)) ?? failures[0];
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
