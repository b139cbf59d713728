import type { FastifyInstance } from "fastify";

/** The longest local path a form or query may ask to be sent back to. */
export const LOCAL_PATH_MAX = 500;

/**
 * A path on this site that a request may ask to be sent to (a sign-in's `next`), or "" when the value is not one:
 * it starts with one "/" (not "//" or "/\", which browsers read as another host), holds no backslash, space or
 * control character, and is at most LOCAL_PATH_MAX characters.
 */
export function localPath(value: string): string {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point.
  return value.length <= LOCAL_PATH_MAX && /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f-\u009f]*$/.test(value) ? value : "";
}

/**
 * A URL that can go into a header as it is: every character outside printable ASCII is percent-encoded as UTF-8
 * (a lone surrogate as U+FFFD), and what is already printable ASCII, including existing %XX escapes, is kept. Node
 * refuses to send a header with other characters, which turned `next=/✓` into a 500 after the sign-in was done.
 */
export function headerSafeUrl(url: string): string {
  if (/^[\x21-\x7e]*$/.test(url)) return url;
  return url
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
}

/**
 * The floor under every redirect: whatever a route put into Location (or Content-Location) is made header-safe
 * before the answer is written, so no value a person can reach there ends as a 500 after the route's work is done.
 */
export function registerSafeLocations(app: FastifyInstance): void {
  app.addHook("onSend", (_request, reply, payload, done) => {
    for (const name of ["location", "content-location"]) {
      const value = reply.getHeader(name);
      if (typeof value === "string") {
        const safe = headerSafeUrl(value);
        if (safe !== value) reply.header(name, safe);
      }
    }
    done(null, payload);
  });
}
