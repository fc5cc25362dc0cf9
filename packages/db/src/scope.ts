/** Every row belongs to one organisation and one project; every query names both. */
export interface Scope {
  orgId: string;
  projectId: string;
}

/** The embedded (local) mode serves one fixed organisation and the project `default`. */
export const LOCAL_SCOPE: Scope = { orgId: "local", projectId: "default" };
