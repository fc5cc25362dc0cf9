import { describe, expect, test } from "bun:test";
import { loadSettings } from "@als/core";
import { clientAddressResolver } from "../../src/http/client-address.ts";

// Which address a request is counted under (sign-in limits): TRUSTED_PROXIES decides whether the
// forwarding headers are read at all, and how far back along them.

const request = (headers: Record<string, string>) => new Request("http://localhost/api/account/login", { headers });
const balancer = { address: "10.0.0.0", family: "ipv4" as const, prefix: 8 };

describe("client address behind proxies (TRUSTED_PROXIES)", () => {
  test("by default no proxy is trusted: X-Forwarded-For and Forwarded are never read", () => {
    const resolve = clientAddressResolver([]);
    expect(resolve(request({ "x-forwarded-for": "203.0.113.7" }), "10.0.0.2")).toBe("10.0.0.2");
    expect(resolve(request({ forwarded: "for=203.0.113.7" }), "10.0.0.2")).toBe("10.0.0.2");
    expect(resolve(request({}), null)).toBeNull();
  });

  test("from a trusted proxy the nearest untrusted hop of X-Forwarded-For is the client; what the client wrote before it is not believed", () => {
    const resolve = clientAddressResolver([balancer]);
    expect(resolve(request({ "x-forwarded-for": "203.0.113.7" }), "10.0.0.2")).toBe("203.0.113.7");
    // The client sent X-Forwarded-For: 1.2.3.4 itself; the balancer appended the real address.
    expect(resolve(request({ "x-forwarded-for": "1.2.3.4, 203.0.113.7" }), "10.0.0.2")).toBe("203.0.113.7");
    // Two trusted hops (an edge proxy, then the balancer) are walked past.
    expect(resolve(request({ "x-forwarded-for": "1.2.3.4, 203.0.113.7, 10.9.9.9" }), "10.0.0.2")).toBe("203.0.113.7");
    expect(resolve(request({ "x-forwarded-for": "203.0.113.7:4711" }), "10.0.0.2")).toBe("203.0.113.7");
  });

  test("a request that did not come through a trusted proxy keeps its connecting address whatever it claims", () => {
    const resolve = clientAddressResolver([balancer]);
    expect(resolve(request({ "x-forwarded-for": "203.0.113.7" }), "198.51.100.4")).toBe("198.51.100.4");
    expect(resolve(request({}), "10.0.0.2")).toBe("10.0.0.2");
    expect(resolve(request({ "x-forwarded-for": "unknown" }), "10.0.0.2")).toBe("10.0.0.2");
  });

  test("Forwarded (RFC 7239) is read when there is no X-Forwarded-For, IPv6 in brackets with a port too", () => {
    const resolve = clientAddressResolver([balancer, { address: "::1", family: "ipv6", prefix: 128 }]);
    expect(resolve(request({ forwarded: 'for=1.2.3.4, for="[2001:db8::7]:4711";proto=https' }), "10.0.0.2")).toBe("2001:db8::7");
    expect(resolve(request({ forwarded: "proto=https;for=203.0.113.7" }), "::1")).toBe("203.0.113.7");
  });

  test("an IPv4 client on a dual-stack socket is one client, whichever way its address is written", () => {
    const resolve = clientAddressResolver([balancer]);
    expect(resolve(request({}), "::ffff:198.51.100.4")).toBe("198.51.100.4");
    expect(resolve(request({ "x-forwarded-for": "::ffff:203.0.113.7" }), "::ffff:10.0.0.2")).toBe("203.0.113.7");
  });

  test("TRUSTED_PROXIES takes addresses and CIDR networks; a bad entry fails start-up naming the setting", () => {
    expect(loadSettings({}).identity.trustedProxies).toEqual([]);
    expect(loadSettings({ TRUSTED_PROXIES: " 10.0.0.5, 10.1.0.0/16 ,::1,fd00::/8" }).identity.trustedProxies).toEqual([
      { address: "10.0.0.5", family: "ipv4", prefix: 32 },
      { address: "10.1.0.0", family: "ipv4", prefix: 16 },
      { address: "::1", family: "ipv6", prefix: 128 },
      { address: "fd00::", family: "ipv6", prefix: 8 },
    ]);
    for (const bad of ["10.0.0.0/33", "balancer.internal", "10.0.0.0/x", "::1/129"]) {
      expect(() => loadSettings({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES: .* is not an IP address or a CIDR network/);
    }
  });
});
