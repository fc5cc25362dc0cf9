import { PENDING_TOOL_CALLS_ATTRIBUTE, USER_ID_ATTRIBUTE } from "@als/workflows/search-attributes";
import type { Logger, NativeConnection } from "@temporalio/worker";

/** Temporal's IndexedValueType numbers (temporal.api.enums.v1) of the attributes' types. */
const INDEXED_VALUE_TYPES = { [USER_ID_ATTRIBUTE.name]: 2, [PENDING_TOOL_CALLS_ATTRIBUTE.name]: 7 };

/**
 * Makes sure the namespace has the learning workflows' search attributes, adding the missing ones.
 * False when it cannot (the credentials may not administer the namespace): workflows then leave
 * them unset rather than fail their tasks, and the current details still say what a run waits on.
 */
export async function registerSearchAttributes(connection: NativeConnection, namespace: string, log: Logger): Promise<boolean> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.fromEntries(Object.entries(INDEXED_VALUE_TYPES).filter(([name]) => !(name in (customAttributes ?? {}))));
    if (Object.keys(missing).length > 0) await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    return true;
  } catch (error) {
    log.warn("search attributes not registered; learning workflows run without them", { error: String(error) });
    return false;
  }
}
