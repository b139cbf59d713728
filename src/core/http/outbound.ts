import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Requests this server makes to a host an administrator named (a council's Open311 endpoint): http(s) only,
 * bounded in time (connect, answer and body together) and in size, never following a redirect, and never to a
 * loopback, private, link-local or otherwise non-public address unless the operator allowed it
 * (`allowPrivateAddresses`, for tests and a council on the same private network). The address is checked when the
 * connection is made (the socket's own lookup), so a name that resolves to a private address later is refused too.
 * Failures are OutboundError with a message fit to show staff and to log: it names the host, never the query.
 */
export class OutboundError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the host answered. */
    readonly status: number | null = null,
    /** The start of the answer's body when there was one (untrusted text: escape it where it is shown). */
    readonly body: string | null = null,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

export interface OutboundOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
  allowPrivateAddresses: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 127],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, "ipv6");
}

/** True for an address a request from this server must not reach without the operator's leave. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = (addresses as unknown as LookupAddress[]).filter(
        (a) => allowPrivate || !isNonPublicAddress(a.address),
      );
      const first = list[0];
      if (!first) {
        return callback(
          Object.assign(new Error(`${hostname} is on a private or local address`), { code: "EPRIVATE" }),
          "",
          0,
        );
      }
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}

/** Makes one bounded request. Answers any status; throws OutboundError when there is no (whole) answer. */
export function outboundRequest(target: string, options: OutboundOptions): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.reject(new OutboundError("the address is not a URL"));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.reject(new OutboundError("only http and https addresses are allowed"));
  }
  if (url.username || url.password) return Promise.reject(new OutboundError("the address must not carry a password"));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && isNonPublicAddress(host) && !options.allowPrivateAddresses) {
    return Promise.reject(new OutboundError(`${host} is a private or local address`));
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (error: OutboundError | null, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response as OutboundResponse);
    };
    const request = client.request(
      url,
      {
        method: options.method ?? "GET",
        headers: { "user-agent": "civic-platform (forwarding)", ...options.headers },
        lookup: guardedLookup(options.allowPrivateAddresses),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            request.destroy();
            done(new OutboundError(`the answer from ${url.host} was larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          done(null, {
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", () => done(new OutboundError(`the answer from ${url.host} broke off`)));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      done(new OutboundError(`${url.host} did not answer within ${Math.round(options.timeoutMs / 1000)} s`));
    }, options.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === "EPRIVATE"
          ? `${url.hostname} is on a private or local address`
          : `could not reach ${url.host} (${error.code ?? "error"})`;
      done(new OutboundError(reason));
    });
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}
