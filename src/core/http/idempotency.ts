import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { formField } from "./csrf.js";
import { hasPendingUploads, whenFilesReceived } from "../media/uploads.js";
import { AppError, ReplayedResponse } from "./errors.js";

export { ReplayedResponse };

/**
 * Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header) for the report submission paths: the first
 * request with a key runs and, when it created something, its response is stored; a repeat with the same key and
 * the same content gets that response again and creates nothing; a repeat while the first still runs gets 409; the
 * same key with other content gets 422. Keys live in the database (table idempotency_keys), so this holds across
 * restarts and several processes sharing one PostgreSQL. A request that did not create anything (refused,
 * failed) releases its key, so it can be corrected and sent again with the same key.
 *
 * Keys belong to whoever sent them: a route says who that is (`client`, after its authentication: the API key, the
 * signed-in account, or the anonymous scope of the web form), and the key space is `<scope>:<client>`, so one
 * client can neither read another's answer nor learn which keys another used. A request whose client is not known
 * yet (`client` answers null) is not looked up at all. The answer a key stored names what it created (`resource`,
 * e.g. a report), so erasing a person's data erases the stored answers of their submissions with it
 * (`forgetIdempotentAnswers`).
 *
 * This is "already sent" at the HTTP layer, for clients that name their request with a key. A web form's own
 * single use (its form token, recorded in the work's transaction) is core/http/single-use.tsx, which every form goes
 * through; its module comment says why the two are one rule at two layers and how POST /report uses both.
 */

/**
 * How long a key is remembered. The draft asks for at least 24 hours; a phone that lost its connection just after
 * the server stored its report may only retry days later, so keys are kept for 30 days (rows are small).
 */
export const IDEMPOTENCY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a running request holds its key; after that (its process died) a retry may run instead. */
export const IDEMPOTENCY_LEASE_MS = 5 * 60 * 1000;

/** A key is an sf-string (`"…"`, as the draft writes it) or, leniently, the bare token: 1-255 visible characters. */
const KEY = /^[\x21\x23-\x5b\x5d-\x7e]{1,255}$/;
/** The same as a JSON Schema pattern for the header: quoted or bare (an API description's `pattern`). */
export const IDEMPOTENCY_KEY_PATTERN =
  '^(?:"[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,255}"|[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,255})$';

/** Response headers replayed with a stored response. */
const STORED_HEADERS = ["content-type", "location", "cache-control"] as const;

export type Claim =
  | { kind: "owned"; owner: string }
  | { kind: "mismatch" }
  | { kind: "running" }
  | { kind: "done"; status: number; headers: Record<string, string>; body: string };

/** Parses an Idempotency-Key value; null when absent. Throws bad_request for a malformed one. */
export function parseIdempotencyKey(value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  const raw = typeof value === "string" ? value.trim() : "";
  const key = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!KEY.test(key)) {
    throw new AppError(
      "bad_request",
      'The Idempotency-Key must be one quoted string of 1 to 255 visible characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324".',
    );
  }
  return key;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** The body field under which a multipart submission's files (name and sha256) enter its fingerprint. */
const FILES_FIELD = "\u0000files";

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A JSON-able form of a body that ignores what does not change its meaning: key order, multipart boundaries. */
async function canonical(value: unknown, depth = 0): Promise<unknown> {
  if (depth > 8) return null;
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Buffer.isBuffer(value)) return { bytes: sha256(value) };
  if (Array.isArray(value)) {
    const items = await Promise.all(value.map((v) => canonical(v, depth + 1)));
    return items.filter((v) => v !== undefined);
  }
  if (typeof value === "object") {
    const out: [string, unknown][] = [];
    for (const key of Object.keys(value).sort()) {
      const v = await canonical((value as Record<string, unknown>)[key], depth + 1);
      if (v !== undefined) out.push([key, v]);
    }
    return out;
  }
  return null;
}

/** sha256 of a request body's content, leaving out the named fields (form tokens, the key itself, buttons). */
export async function bodyFingerprint(
  body: unknown,
  ignoreFields: readonly string[] = [],
  extra = "",
): Promise<string> {
  let content = body;
  if (body && typeof body === "object" && !Array.isArray(body) && !Buffer.isBuffer(body)) {
    content = Object.fromEntries(Object.entries(body).filter(([k]) => !ignoreFields.includes(k)));
  }
  return sha256(`${extra}\n${JSON.stringify(await canonical(content))}`);
}

/**
 * Claims (scope, key) for a request with this fingerprint, or says why not. One conditional insert decides between
 * concurrent first requests (on both databases); a row whose retention ended, or whose holder's lease ran out, is
 * taken over.
 */
export async function claimIdempotencyKey(
  db: Kysely<DB>,
  scope: string,
  key: string,
  fingerprint: string,
  now: Date,
): Promise<Claim> {
  const at = now.toISOString();
  const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS).toISOString();
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString();
  const fresh = {
    fingerprint,
    state: "running",
    status: null,
    headers: null,
    body: null,
    resource: null,
    created_at: at,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = randomUUID();
    const inserted = await db
      .insertInto("idempotency_keys")
      .values({ scope, key, owner, ...fresh, locked_until: lockedUntil, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
      .returning("owner")
      .executeTakeFirst();
    if (inserted) {
      await db.deleteFrom("idempotency_keys").where("expires_at", "<", at).execute();
      return { kind: "owned", owner };
    }
    const taken = await db
      .updateTable("idempotency_keys")
      .set({ owner, ...fresh, locked_until: lockedUntil, expires_at: expiresAt })
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where((eb) =>
        eb.or([eb("expires_at", "<", at), eb.and([eb("state", "=", "running"), eb("locked_until", "<", at)])]),
      )
      .returning("owner")
      .executeTakeFirst();
    if (taken) return { kind: "owned", owner };
    const row = await db
      .selectFrom("idempotency_keys")
      .select(["fingerprint", "state", "status", "headers", "body"])
      .where("scope", "=", scope)
      .where("key", "=", key)
      .executeTakeFirst();
    if (!row) continue; // released between our insert and select: try again
    if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
    if (row.state !== "done" || row.status === null) return { kind: "running" };
    return {
      kind: "done",
      status: row.status,
      headers: JSON.parse(row.headers ?? "{}") as Record<string, string>,
      body: row.body ?? "",
    };
  }
  return { kind: "running" };
}

/** Stores the response of the request that holds the key, with the name of what it created (or null). */
export async function completeIdempotencyKey(
  db: Kysely<DB>,
  scope: string,
  key: string,
  owner: string,
  response: { status: number; headers: Record<string, string>; body: string; resource: string | null },
): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({
      state: "done",
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
      resource: response.resource,
      locked_until: null,
    })
    .where("scope", "=", scope)
    .where("key", "=", key)
    .where("owner", "=", owner)
    .execute();
}

/** Lets go of a key whose request created nothing, so the same key may be used again. */
export async function releaseIdempotencyKey(db: Kysely<DB>, scope: string, key: string, owner: string) {
  await db
    .deleteFrom("idempotency_keys")
    .where("scope", "=", scope)
    .where("key", "=", key)
    .where("owner", "=", owner)
    .where("state", "=", "running")
    .execute();
}

/**
 * Deletes the stored answers that name these resources (e.g. a person's reports, on erasure) and every key of these
 * client scopes (`idempotencyScope`): what a stored answer and its fingerprint say about a submission goes with it.
 */
export async function forgetIdempotentAnswers(
  db: Kysely<DB>,
  forget: { resources?: readonly string[]; scopes?: readonly string[] },
): Promise<void> {
  const resources = [...new Set(forget.resources ?? [])];
  for (let i = 0; i < resources.length; i += 500) {
    await db
      .deleteFrom("idempotency_keys")
      .where("resource", "in", resources.slice(i, i + 500))
      .execute();
  }
  const scopes = [...new Set(forget.scopes ?? [])];
  if (scopes.length > 0) await db.deleteFrom("idempotency_keys").where("scope", "in", scopes).execute();
}

/** The key space of one client of a scope: `report:account:<id>`, `open311:key:<id>`, `report:anonymous`. */
export function idempotencyScope(scope: string, client: string): string {
  return `${scope}:${client}`;
}

export interface IdempotencyOptions {
  /** Paths in one scope share keys: the web form and the app's drafts use "report", so a draft made from a web
   * form post whose answer was lost is recognised. Within it each client has its own keys (`client`). */
  scope: string;
  /**
   * Who sent the request, as the route's authentication established it before the claim runs: e.g. `key:<id>`
   * for an API key, `account:<id>` for a signed-in person, `anonymous`. Null when no client is known: the key is
   * then not looked at (the request is refused by its authentication, or runs as if it had no key).
   */
  client: (request: FastifyRequest) => string | null;
  /** The name of what a completed request created (e.g. `report:<reference>`), stored with its answer. */
  resource: (request: FastifyRequest, reply: FastifyReply) => string | null;
  /** The statuses that mean "created": such a response is stored and replayed; any other releases the key. */
  completes: (status: number) => boolean;
  /** Refuse requests without a key (400 idempotency_key_missing). */
  required?: boolean;
  /** A form field that may carry the key when a browser form cannot send the header. */
  formField?: string;
  /** Body fields that are not content: form tokens, the key field, the submit button. */
  ignoreFields?: readonly string[];
  /** Make the request path part of the content (e.g. .json and .xml answer differently). */
  includePath?: boolean;
  /** Whether this request is a submission at all (the web form's "check for reports nearby" is not). */
  applies?: (request: FastifyRequest) => boolean;
}

/**
 * Route hooks that make a submission path idempotent: `claim` claims the key or answers a repeat, and must run once
 * the request's client is authenticated (after the session is read, for the report form: `preValidation`, so a
 * replay of a long-expired form still gets its answer; after the API key check, for Open311: the end of
 * `preHandler`); `onSend` stores the created response or releases the key.
 */
export function idempotencyHooks(opts: IdempotencyOptions) {
  const claims = new WeakMap<FastifyRequest, { scope: string; key: string; owner: string }>();
  const ignore = [...(opts.ignoreFields ?? []), ...(opts.formField ? [opts.formField] : [])];

  async function claim(request: FastifyRequest, reply: FastifyReply) {
    if (opts.applies && !opts.applies(request)) return;
    const client = opts.client(request);
    if (client === null) return;
    const scope = idempotencyScope(opts.scope, client);
    const header = request.headers["idempotency-key"];
    const fromForm = opts.formField ? formField(request.body, opts.formField) : undefined;
    const key = parseIdempotencyKey(header ?? fromForm);
    if (key === null) {
      if (!opts.required) return;
      throw new AppError(
        "idempotency_key_missing",
        "This request needs an Idempotency-Key header: a new random value (a UUID) for each report, the same for its retries.",
      );
    }
    const path = opts.includePath ? (request.url.split("?")[0] ?? "") : "";
    if (hasPendingUploads(request)) {
      // The files are read later, in the handler (core/media/uploads.ts): the claim waits for the whole submission,
      // so that the same key with other photos is recognised as a different request. A replay found then is sent
      // through the error path (ReplayedResponse), as the route's work is not run.
      whenFilesReceived(request, async (files) => {
        const digests = await Promise.all(
          files.map(async (f) => ({ file: f.filename, bytes: await fileSha256(f.path) })),
        );
        const { body } = request;
        const fingerprint = await bodyFingerprint(
          { ...(typeof body === "object" ? body : {}), [FILES_FIELD]: digests },
          ignore,
          path,
        );
        const claimed = await claimFor(request, scope, key, fingerprint);
        if (claimed.kind === "done") throw new ReplayedResponse(claimed.status, claimed.headers, claimed.body);
      });
      return;
    }
    const claimed = await claimFor(request, scope, key, await bodyFingerprint(request.body, ignore, path));
    if (claimed.kind === "done") return reply.code(claimed.status).headers(claimed.headers).send(claimed.body);
  }

  /** Claims the key for this request, or throws the answer to give a repeat that is not done yet or differs. */
  async function claimFor(request: FastifyRequest, scope: string, key: string, fingerprint: string) {
    const { db } = request.server.civic.database;
    const claim = await claimIdempotencyKey(db, scope, key, fingerprint, request.server.civic.now());
    switch (claim.kind) {
      case "owned":
        claims.set(request, { scope, key, owner: claim.owner });
        return claim;
      case "mismatch":
        throw new AppError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used for a different request. Use a new key for a new report.",
        );
      case "running":
        throw new AppError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still being processed. Try again in a moment.",
          { headers: { "retry-after": "2" } },
        );
      case "done":
        return claim;
    }
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const { db } = request.server.civic.database;
    const storable = payload === null || payload === undefined || typeof payload === "string";
    try {
      if (storable && opts.completes(reply.statusCode)) {
        const headers: Record<string, string> = {};
        for (const name of STORED_HEADERS) {
          const value = reply.getHeader(name);
          if (typeof value === "string") headers[name] = value;
        }
        const body = typeof payload === "string" ? payload : "";
        await completeIdempotencyKey(db, claim.scope, claim.key, claim.owner, {
          status: reply.statusCode,
          headers,
          body,
          resource: opts.resource(request, reply),
        });
      } else {
        await releaseIdempotencyKey(db, claim.scope, claim.key, claim.owner);
      }
    } catch (error) {
      // The answer itself is right; a retry will wait for the lease and may run again.
      request.log.error({ err: error }, "could not record the idempotency key's outcome");
    }
    return payload;
  }

  return { claim, onSend };
}
