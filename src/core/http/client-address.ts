import type { FastifyRequest } from "fastify";
import { isIPv4, isIPv6 } from "node:net";

/**
 * The client a per-client limit counts: an IPv4 address as it is; an IPv6 address by its /64, because one machine
 * or one home is usually given a whole /64 and could otherwise appear as millions of clients; an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, as a dual-stack socket reports IPv4 clients) as the IPv4 address. Anything else
 * (a test double, a unix socket) is kept as it is. Every per-client limiter and client-derived identity asks this.
 */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, "");
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    if (groups[5] === 0xffff) {
      return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
    }
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The limit key of the client that sent a request (its address as Fastify resolved it, see TRUST_PROXY). */
export function requestClient(request: FastifyRequest): string {
  return clientKey(request.ip ?? "");
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...middle, ...right].map((g) => Number.parseInt(g, 16));
}
