import { BlockList, isIP } from "node:net";
import type { TrustedProxy } from "@als/core";
import { sameOrigin } from "./browser-guard.ts";

/** Finds the client's address of a request from its connecting address and its forwarding headers. */
export type ClientAddressOf = (request: Request, peer: string | null) => string | null;

/**
 * The client's address: the connecting address, unless that is a trusted proxy (TRUSTED_PROXIES),
 * in which case the forwarded chain is walked from its end, the hop nearest us, past every trusted
 * proxy to the first address that is not one. Earlier entries are whatever the client wrote and are
 * never believed. X-Forwarded-For is read (what HAProxy's `option forwardfor` and most balancers
 * append to), else Forwarded's `for=`. With no trusted proxy no header is read at all.
 */
export function clientAddressResolver(trustedProxies: readonly TrustedProxy[]): ClientAddressOf {
  if (trustedProxies.length === 0) return (_request, peer) => peer && unmapped(peer);
  const trusted = new BlockList();
  for (const proxy of trustedProxies) trusted.addSubnet(proxy.address, proxy.prefix, proxy.family);
  const isTrusted = (address: string) => {
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 4 ? "ipv4" : "ipv6");
  };
  return (request, peer) => {
    if (peer === null || !isTrusted(peer)) return peer && unmapped(peer);
    const chain = forwardedChain(request.headers);
    let client = peer;
    for (let hop = chain.length - 1; hop >= 0 && isTrusted(client); hop--) {
      // A hop that is not an address (`unknown`, an obfuscated name) ends the walk at the proxy before it.
      if (isIP(chain[hop]!) === 0) break;
      client = chain[hop]!;
    }
    return unmapped(client);
  };
}

/** The addresses a request was forwarded for, the client's first. */
function forwardedChain(headers: Headers): string[] {
  const forwardedFor = headers.get("x-forwarded-for");
  if (forwardedFor !== null) return forwardedFor.split(",").map((entry) => withoutPort(entry.trim()));
  const forwarded = headers.get("forwarded");
  if (forwarded === null) return [];
  return forwarded.split(",").flatMap((element) => {
    const value = /(?:^|;)\s*for\s*=\s*("[^"]*"|[^;,\s]*)/i.exec(element)?.[1];
    return value === undefined ? [] : [withoutPort(value.replace(/^"|"$/g, ""))];
  });
}

/** `203.0.113.7:4711` → `203.0.113.7`; `[2001:db8::1]:4711` → `2001:db8::1`; a bare IPv6 address stays whole. */
function withoutPort(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed) return bracketed[1]!;
  return /^[\d.]+:\d+$/.test(entry) ? entry.slice(0, entry.lastIndexOf(":")) : entry;
}

/** An IPv4 client reaching a dual-stack socket shows as `::ffff:203.0.113.7`: one client, one name. */
function unmapped(address: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

/** Headers a proxy adds for the client it forwards: a request carrying one came through a proxy. */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * Whether the request came from a client on the server's own machine: over a loopback socket,
 * without any forwarding header, and not from a page of another web origin. A proxy on the same
 * machine (nginx, HAProxy) connects over loopback too, for clients anywhere; the header it adds is
 * what tells it apart, whether or not it is trusted (TRUSTED_PROXIES), so nothing that came through
 * one counts as this machine. A page of an origin SERVICE_ALLOWED_ORIGINS lets read the API is not
 * the operator's console either.
 */
export function fromThisMachine(request: Request, peer: string | null): boolean {
  if (peer === null || FORWARDING_HEADERS.some((name) => request.headers.has(name))) return false;
  const origin = request.headers.get("origin");
  if (origin !== null && !sameOrigin(origin, request)) return false;
  const version = isIP(unmapped(peer));
  return version !== 0 && LOOPBACK.check(unmapped(peer), version === 4 ? "ipv4" : "ipv6");
}
