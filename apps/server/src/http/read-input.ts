import { AppError } from "@als/contract";
import { refuseDeepNesting, refuseUnstorableText } from "./validation.ts";

/** A JSON media type: `application/json`, or a `+json` suffix type such as `application/merge-patch+json`. */
const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The JSON body of a request, or undefined when it has none. A body must be declared JSON (415
 * otherwise: a `text/plain` POST is what another web page can send without a preflight), at most
 * `maxBytes` long (413; the length is counted as the body streams in, not taken from the header),
 * valid UTF-8, valid JSON and nested no deeper than MAX_INPUT_DEPTH (422).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBytes(request, maxBytes);
  if (bytes.length === 0) return undefined;
  if (!JSON_MEDIA_TYPE.test(request.headers.get("content-type") ?? "")) {
    throw new AppError("unsupported_media_type", "the body must be JSON: send Content-Type: application/json");
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw AppError.validation([{ loc: ["body"], msg: "body is not valid UTF-8", type: "utf8_invalid" }]);
  }
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw AppError.validation([{ loc: ["body"], msg: "body is not valid JSON", type: "json_invalid" }]);
  }
  // Here too, not only when the input is parsed: a tRPC body is written out again before that.
  refuseDeepNesting(body, "body");
  return body;
}

async function readBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  // A declared length (already checked against the limit) is read in one native call: the server
  // reads no more than it declares; the count after it catches a request built in process that lies.
  if (request.headers.has("content-length")) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.length > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    length += chunk.length;
    if (length > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

const tooLarge = (maxBytes: number) => new AppError("payload_too_large", `the body is larger than ${maxBytes} bytes (SERVICE_MAX_BODY_BYTES)`);

/**
 * The path parameters of a route, each decoded and storable text, or a 422 naming the parameter.
 * The router leaves a parameter it cannot percent-decode as null: it must not stand for "none"
 * (a null project id would mean the default project).
 */
export function readPathParams(params: Record<string, string | null> | undefined): Record<string, string> {
  const decoded = Object.entries(params ?? {});
  const undecodable = decoded.filter(([, value]) => typeof value !== "string");
  if (undecodable.length > 0) {
    throw AppError.validation(undecodable.map(([name]) => ({ loc: ["path", name], msg: "is not percent-encoded UTF-8", type: "string_unicode" })));
  }
  const text = Object.fromEntries(decoded) as Record<string, string>;
  refuseUnstorableText(text, "path");
  return text;
}

/**
 * Query parameters as an object; a repeated key becomes a list. Gathered in a Map: a parameter
 * named `constructor` or `__proto__` must not find (or replace) what a plain object inherits.
 */
export function readQuery(url: URL): Record<string, string | string[]> {
  const query = new Map<string, string | string[]>();
  for (const [key, value] of url.searchParams) {
    const seen = query.get(key);
    query.set(key, seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]);
  }
  return Object.fromEntries(query);
}

/** The body with the endpoint's query-string fields added (`?wait_for_response=true`); the body wins. */
export function withQueryFields(endpoint: { queryFields?: readonly string[] }, url: URL, body: unknown): unknown {
  if (!endpoint.queryFields || (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body)))) return body;
  const query = readQuery(url);
  const fromQuery = Object.fromEntries(endpoint.queryFields.flatMap((field) => (Object.hasOwn(query, field) ? [[field, query[field]]] : [])));
  return Object.keys(fromQuery).length === 0 ? body : { ...fromQuery, ...(body as object) };
}
