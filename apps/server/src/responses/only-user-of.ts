/** The one user a batch of records is about, or null when it names several: an idempotency key is erased with that user. */
export function onlyUserOf(records: readonly { user_id: string }[]): string | null {
  const users = new Set(records.map((record) => record.user_id));
  return users.size === 1 ? [...users][0]! : null;
}
