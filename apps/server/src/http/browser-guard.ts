import { AppError } from "@als/contract";
import { errorResponse } from "./error-response.ts";

/** Which web pages may call the service from a browser, and under which host names it is reached. */
export interface BrowserPolicy {
  /** Origins (`https://app.example.com`) whose pages may call the API; CORS answers only them. */
  allowedOrigins: readonly string[];
  /** Host names the service answers to (DNS rebinding protection); "any" turns the check off. */
  allowedHosts: readonly string[] | "any";
}

/** A local server answers only to loopback names and to no other web page. */
export const LOCAL_BROWSER_POLICY: BrowserPolicy = { allowedOrigins: [], allowedHosts: ["localhost", "127.0.0.1", "[::1]"] };

const CORS_HEADERS = {
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
  "access-control-allow-headers": "content-type, authorization, x-correlation-id, x-service-project",
  "access-control-max-age": "600",
};

/** `127.0.0.1:8081` → `127.0.0.1`, `[::1]:8081` → `[::1]`. */
const hostnameOf = (host: string) => (host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!).toLowerCase();

/**
 * Refuses, before any route runs (tRPC included), a request under a host name the service does not
 * answer to — a page on another site that rebinds its DNS name to this address would otherwise read
 * `/api/my_config` — and a request a browser sends from another page's origin unless that origin is
 * allowed, whose CORS headers it then gets. Requests without an Origin (agents, curl, same-origin
 * GETs) pass.
 */
export function browserGuard(policy: BrowserPolicy) {
  return ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }): Response | undefined => {
    const host = hostnameOf(request.headers.get("host") ?? new URL(request.url).host);
    if (policy.allowedHosts !== "any" && !policy.allowedHosts.includes(host)) {
      return errorResponse(new AppError("forbidden", `the host name ${host} is not served here (SERVICE_ALLOWED_HOSTS)`));
    }
    const origin = request.headers.get("origin");
    if (origin === null || sameOrigin(origin, request)) return undefined;
    if (!policy.allowedOrigins.includes(origin)) {
      return errorResponse(new AppError("forbidden", `requests from the web origin ${origin} are refused (SERVICE_ALLOWED_ORIGINS)`));
    }
    set.headers["access-control-allow-origin"] = origin;
    set.headers.vary = "origin";
    if (request.method === "OPTIONS")
      return new Response(null, { status: 204, headers: { "access-control-allow-origin": origin, vary: "origin", ...CORS_HEADERS } });
    return undefined;
  };
}

/** Whether `origin` is the one the request was sent to: the console's own page. */
export function sameOrigin(origin: string, request: Request): boolean {
  try {
    return new URL(origin).host === (request.headers.get("host") ?? new URL(request.url).host);
  } catch {
    return false;
  }
}
