/** How a payload key is indexed and compared: text (or arrays of text) and whole numbers. */
export type PayloadKind = "keyword" | "integer";

/**
 * The collections, one per searchable table, and the payload keys a filter can name in each: the
 * columns the searches of packages/core filter on, plus the model of the vector (a search compares
 * only vectors of its query's model).
 */
export const COLLECTIONS = {
  profiles: {
    user_id: "keyword",
    status: "keyword",
    source: "keyword",
    tags: "keyword",
    custom_feature: "keyword",
    extractor_name: "keyword",
    generated_from_request_id: "keyword",
    profile_time_to_live: "keyword",
    embedding_model: "keyword",
    created_at: "integer",
    last_modified_timestamp: "integer",
    expires_at: "integer",
  },
  user_playbooks: {
    user_id: "keyword",
    request_id: "keyword",
    agent_version: "keyword",
    playbook_name: "keyword",
    status: "keyword",
    source: "keyword",
    tags: "keyword",
    embedding_model: "keyword",
    created_at: "integer",
  },
  agent_playbooks: {
    agent_version: "keyword",
    playbook_name: "keyword",
    status: "keyword",
    playbook_status: "keyword",
    tags: "keyword",
    /** The sources of the linked user playbooks. */
    linked_sources: "keyword",
    embedding_model: "keyword",
    created_at: "integer",
  },
  interactions: {
    user_id: "keyword",
    request_id: "keyword",
    embedding_model: "keyword",
    seq: "integer",
  },
} as const satisfies Record<string, Record<string, PayloadKind>>;

export type Collection = keyof typeof COLLECTIONS;

export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as Collection[];

/** The keys of a collection, checked: a filter naming another key is a bug, never a silently dropped condition. */
export function payloadKeysOf(collection: Collection): readonly string[] {
  return Object.keys(COLLECTIONS[collection]);
}

export function checkPayloadKey(collection: Collection, key: string): void {
  if (!Object.hasOwn(COLLECTIONS[collection], key)) throw new Error(`collection ${collection} has no payload key '${key}'`);
}
