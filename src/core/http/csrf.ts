import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { AppError } from "./errors.js";

/**
 * Cookie-free CSRF protection for HTML forms, in two layers:
 * 1. Fetch metadata: a browser's cross-site POST (Sec-Fetch-Site: cross-site, or an Origin that is not ours) is
 *    refused outright.
 * 2. A signed form token in every form (`_csrf`): HMAC(secret, issued-at + nonce). It also tells how long the form
 *    was open, which the spam defences use as a minimum fill time, without any cookie or tracking.
 */
export const FORM_TOKEN_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const MAX_AGE_MS = FORM_TOKEN_MAX_AGE_MS;

export interface FormToken {
  issuedAt: number;
  /** The token's random part: it names one filling-in of a form (see form-submissions.ts). */
  nonce: string;
}

export class FormTokens {
  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  issue(): string {
    const payload = `${this.now().toString(36)}.${randomBytes(9).toString("base64url")}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /** Returns the token's issue time, or null when it is missing, forged or expired. */
  verify(token: unknown): FormToken | null {
    if (typeof token !== "string" || token.length > 200) return null;
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const [issued, nonce, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.sign(`${issued}.${nonce}`));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const issuedAt = Number.parseInt(issued, 36);
    const age = this.now() - issuedAt;
    if (!Number.isFinite(issuedAt) || age < -60_000 || age > MAX_AGE_MS) return null;
    return { issuedAt, nonce };
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.secret).update(`form:${payload}`).digest("base64url");
  }
}

/** Reads a plain field from a urlencoded body or a multipart body with attached fields. */
export function formField(body: unknown, name: string): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const value = (body as Record<string, unknown>)[name];
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return formField({ v: value[0] }, "v");
  if (value && typeof value === "object" && "value" in value) {
    const inner = (value as { value: unknown }).value;
    return typeof inner === "string" ? inner : undefined;
  }
  return undefined;
}

/**
 * Refuses cross-site form posts. `allowedOrigins` are our own origins (BASE_URL and the Host the request used).
 * `Origin: null` (a sandboxed frame, a data: or file: page, some redirects) is refused too: our own pages never
 * send it, and it would let any page that hides its origin post with a token it obtained.
 */
export function checkSameOrigin(request: FastifyRequest, allowedOrigins: string[]): void {
  const site = request.headers["sec-fetch-site"];
  if (site === "cross-site") {
    throw new AppError("csrf_failed", "This form was sent from another website, so it was refused.");
  }
  const origin = request.headers.origin;
  if (origin === "null") {
    throw new AppError("csrf_failed", "This form was sent from a page without an address, so it was refused.");
  }
  if (origin) {
    const own = [...allowedOrigins, `${request.protocol}://${request.host}`];
    if (!own.includes(origin)) {
      throw new AppError("csrf_failed", "This form was sent from another website, so it was refused.");
    }
  }
}

/**
 * For posts that only our own pages (and the app's service worker) send, without a form token: like
 * `checkSameOrigin`, and a post that says nothing about where it comes from (no `Origin`, no `Sec-Fetch-Site`, as
 * curl sends it) is refused too. Browsers send `Origin` with every POST; other programs use the APIs.
 */
export function requireSameOrigin(request: FastifyRequest, allowedOrigins: string[]): void {
  checkSameOrigin(request, allowedOrigins);
  const site = request.headers["sec-fetch-site"];
  if (!request.headers.origin && site !== "same-origin") {
    throw new AppError(
      "csrf_failed",
      "This address only takes reports from this website's pages. Programs can use the Open311 API (/api/v2).",
    );
  }
}
