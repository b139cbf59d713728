import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { Civic, Viewer } from "../core/context.js";
import type { DB } from "../core/db/schema.js";
import { clearDevicePages } from "../core/http/private-responses.js";
import { deviceClass } from "./devices.js";
import { issueSessionFormToken, isSessionFormToken } from "./session-csrf.js";
import { hashToken, looksLikeToken, newToken } from "../core/tokens.js";

/** Sessions last this long after their last use (sliding expiry). */
export const SESSION_DAYS = 30;
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000;
/** A session's expiry is pushed forward at most this often, so most requests do not write. */
const TOUCH_EVERY_MS = 60 * 60 * 1000;

/** The cookie's name: with https the `__Host-` prefix pins it to our host, Path=/ and Secure. */
export function sessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith("https:") ? "__Host-session" : "session";
}

export function sessionCookie(baseUrl: string, token: string, maxAgeSeconds: number): string {
  const secure = baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${sessionCookieName(baseUrl)}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Reads one cookie from the Cookie header (no cookie library needed for one name). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header || header.length > 8192) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Starts a session for an account: a fresh token, only its hash stored. Sets the cookie on the reply. */
export async function startSession(
  civic: Civic,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
): Promise<void> {
  // A new sign-in replaces the session this browser had (no session fixation, no stale sessions).
  if (request.viewer) await endSession(civic.database.db, request.viewer.sessionId);
  const token = await createSession(civic, accountId, request.headers["user-agent"]);
  reply.header("set-cookie", sessionCookie(civic.config.baseUrl, token, SESSION_MS / 1000));
}

/** Stores a new session for an account and returns its token (the cookie's value). */
export async function createSession(civic: Civic, accountId: string, userAgent: string | undefined): Promise<string> {
  const token = newToken();
  const now = civic.now();
  const at = now.toISOString();
  await civic.database.db.deleteFrom("sessions").where("expires_at", "<", at).execute();
  await civic.database.db
    .insertInto("sessions")
    .values({
      account_id: accountId,
      token_hash: hashToken(token),
      device: deviceClass(userAgent),
      created_at: at,
      last_seen_at: at,
      expires_at: new Date(now.getTime() + SESSION_MS).toISOString(),
    })
    .execute();
  return token;
}

export async function endSession(db: Kysely<DB>, sessionId: number): Promise<void> {
  await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
}

/** Ends every session of an account (sign out everywhere, suspension, deletion). */
export async function endAllSessions(db: Kysely<DB>, accountId: string): Promise<number> {
  const result = await db.deleteFrom("sessions").where("account_id", "=", accountId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ends every session of an account but `keep` (after a sensitive change made in that session). */
export async function endOtherSessions(db: Kysely<DB>, accountId: string, keep: number | null): Promise<number> {
  let query = db.deleteFrom("sessions").where("account_id", "=", accountId);
  if (keep !== null) query = query.where("id", "!=", keep);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/**
 * Ends this browser's session on its side: the cookie goes, and so does every page the browser and the service
 * worker kept of the site (sign-out of any kind, deletion, a session that ended elsewhere).
 */
export function clearSessionCookie(civic: Civic, reply: FastifyReply): void {
  reply.header("set-cookie", sessionCookie(civic.config.baseUrl, "", 0));
  clearDevicePages(reply);
}

/**
 * Finds the signed-in person for a request carrying our cookie. Requests without the cookie cost nothing and never
 * get a Set-Cookie. A cookie that names no live session is cleared; a live one slides its expiry forward.
 */
export async function resolveViewer(civic: Civic, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = readCookie(request.headers.cookie, sessionCookieName(civic.config.baseUrl));
  if (raw === null) return;
  if (!looksLikeToken(raw)) {
    clearSessionCookie(civic, reply);
    return;
  }
  const tokenHash = hashToken(raw);
  const db = civic.database.db;
  const now = civic.now();
  const row = await db
    .selectFrom("sessions")
    .innerJoin("accounts", "accounts.id", "sessions.account_id")
    .select([
      "sessions.id as sessionId",
      "sessions.created_at",
      "sessions.last_seen_at",
      "sessions.expires_at",
      "accounts.id as accountId",
      "accounts.name",
      "accounts.email",
      "accounts.role",
      "accounts.suspended_at",
    ])
    .where("sessions.token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString() || row.suspended_at !== null) {
    if (row) await endSession(db, row.sessionId);
    clearSessionCookie(civic, reply);
    return;
  }
  if (now.getTime() - Date.parse(row.last_seen_at) >= TOUCH_EVERY_MS) {
    await db
      .updateTable("sessions")
      .set({ last_seen_at: now.toISOString(), expires_at: new Date(now.getTime() + SESSION_MS).toISOString() })
      .where("id", "=", row.sessionId)
      .execute();
    reply.header("set-cookie", sessionCookie(civic.config.baseUrl, raw, SESSION_MS / 1000));
  }
  const secret = civic.config.sessionSecret;
  const viewer: Viewer = {
    accountId: row.accountId,
    label: row.name ?? row.email,
    role: row.role,
    sessionId: row.sessionId,
    signedInAt: row.created_at,
    formToken: () => issueSessionFormToken(secret, tokenHash, civic.now().getTime()),
    checkFormToken: (token) => isSessionFormToken(secret, tokenHash, token),
  };
  request.viewer = viewer;
}
