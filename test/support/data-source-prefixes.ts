import type { Tenant } from "./tenants.ts";
import { bearer } from "./tenants.ts";

/**
 * The two prefixes of the data-source routes as a tenant's owner calls them: the key-bound one with
 * the full API key, the project one with a dashboard session and X-Service-Project.
 */
export function dataSourcePrefixes(owner: () => Tenant) {
  return [
    { name: "/api/data-sources", base: "/api/data-sources", headers: () => bearer(owner().fullKey) },
    {
      name: "/api/projects/{project_id}/data-sources",
      base: "/api/projects/default/data-sources",
      headers: () => ({ ...bearer(owner().loginSession), "x-service-project": "default" }),
    },
  ];
}

export type DataSourcePrefix = ReturnType<typeof dataSourcePrefixes>[number];
