import { resolve, sep } from "node:path";
import { AppError } from "@als/contract";
import { errorResponse } from "./error-response.ts";

/** Where scripts/build-console puts the operator console (apps/console); never committed. */
export const CONSOLE_DIST = resolve(import.meta.dir, "../../../console/dist");

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  json: "application/json",
};

/**
 * The console's pages may load only the service's own scripts and call only the service: a script
 * injected through data it shows could not send a session token elsewhere. Charts set inline styles.
 */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/**
 * A file of the built console under /console/<path>: `/console/` is its index (`/console` redirects there); hashed assets are
 * cached for good, the index never (a new build must be picked up). A missing build says how to make one.
 */
export async function serveConsoleFile(distDir: string, pathname: string): Promise<Response> {
  // The console's assets are addressed relative to /console/: the bare path is sent there.
  if (pathname === "/console") return new Response(null, { status: 308, headers: { location: "/console/" } });
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.replace(/^\/console\/?/, "")) || "index.html";
  } catch {
    return errorResponse(AppError.notFound(`console file ${pathname}`));
  }
  const path = resolve(distDir, relative);
  if (!path.startsWith(distDir + sep)) return errorResponse(AppError.notFound(`console file ${relative}`));
  const file = Bun.file(path);
  if (!(await file.exists())) {
    if (!(await Bun.file(resolve(distDir, "index.html")).exists())) {
      return errorResponse(new AppError("not_found", "the operator console is not built on this server: run bash scripts/build-console"));
    }
    return errorResponse(AppError.notFound(`console file ${relative}`));
  }
  const extension = path.slice(path.lastIndexOf(".") + 1);
  const immutable = relative.startsWith("assets/");
  return new Response(file, {
    headers: {
      "content-type": CONTENT_TYPES[extension] ?? "application/octet-stream",
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
      ...SECURITY_HEADERS,
    },
  });
}
