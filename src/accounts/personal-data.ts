import type { Readable } from "node:stream";
import { strToU8 } from "fflate";
import type { Kysely } from "kysely";
import { reclaimErasedBytes } from "../core/db/erasure.js";
import type { DB } from "../core/db/schema.js";
import { badId, parseKeyedId } from "../core/http/ids.js";
import { worthCompressing, type ZipEntry, zipStream, zipToBuffer } from "../core/http/zip-stream.js";
import type { Storage } from "../core/media/storage.js";
import { keepAnAdmin } from "./admins.js";

/**
 * The personal-data registry: every feature that stores something about a person registers a source here, and the
 * data download, the erasure and the consent list (for account holders and for /my-data) all go through it. A new
 * feature (ideas, volunteers, newsletter, moderation) joins them by calling `registerPersonalData` once.
 */
export interface DataSubject {
  /** The person's account, when they have one. */
  accountId: string | null;
  /** The verified address (lower-case) everything without an account is held under. */
  email: string;
  /**
   * Every address the person has proved they hold (lower-case, `email` among them): the account's address, its
   * former addresses and the others it confirmed (see `addresses` on a source). Filled in by the registry
   * (resolveSubject) before any source is asked; sources read it through subjectAddresses.
   */
  emails?: readonly string[];
}

/** The addresses a source looks the person's data up by: all of them once resolved, else the one address. */
export function subjectAddresses(subject: DataSubject): string[] {
  return [...new Set([subject.email, ...(subject.emails ?? [])].map((e) => e.trim().toLowerCase()))];
}

export interface SourceContext {
  db: Kysely<DB>;
  storage: Storage;
  now: Date;
}

/**
 * A file of the download. Large files (photos) give `read` instead of `data`: the archive is streamed and reads
 * them one at a time when it reaches them, so the download's memory does not grow with the number of photos.
 */
export type ExportedFile =
  | {
      /** Path inside the zip, e.g. "photos/AB12-CD34-1.jpg". */
      path: string;
      data: Uint8Array;
    }
  | {
      path: string;
      /** The bytes, read when the archive reaches the file; null leaves it out (e.g. gone from the store). */
      read: () => Promise<Uint8Array | null>;
    };

/** A consent the person gave, shown with its date and withdrawn with one button. */
export interface ConsentRecord {
  /** Unique across sources: "<source key>:<id>". */
  id: string;
  label: string;
  givenAt: string;
}

export interface EraseOptions {
  /** "Also remove my reports (and other public contributions) from public view." */
  removePublicContent: boolean;
}

export interface PersonalDataSource {
  /** The key of this source's part of data.json. */
  key: string;
  collect(ctx: SourceContext, subject: DataSubject): Promise<{ data: unknown; files?: ExportedFile[] }>;
  /** Erases the person's data (inside the erasure's transaction). Public content stays unless asked otherwise. */
  erase(ctx: SourceContext, subject: DataSubject, options: EraseOptions): Promise<void>;
  consents?(ctx: SourceContext, subject: DataSubject): Promise<ConsentRecord[]>;
  /** Withdraws one consent by the id `consents` gave (without the source prefix); false when it is not theirs. */
  withdraw?(ctx: SourceContext, subject: DataSubject, id: string): Promise<boolean>;
  /**
   * Like `withdraw`, for a source whose consent ids are row ids: the form's value is read by the one id parser
   * (core/http/ids.ts) first, so a value that is not an id is a 400 and never reaches the database.
   */
  withdrawRow?(ctx: SourceContext, subject: DataSubject, id: number): Promise<boolean>;
  /**
   * Other addresses this account has proved it holds through this feature (e.g. a sign-up made while signed in
   * under another address and confirmed from that mailbox). What is held under them is the person's too: every
   * source then finds it. Only addresses proved by their mailbox: a typed address alone proves nothing.
   */
  addresses?(ctx: SourceContext, accountId: string): Promise<string[]>;
  /** The tables `erase` deletes from or updates: vacuumed after an erasure on PostgreSQL (core/db/erasure.ts). */
  tables?: readonly (keyof DB & string)[];
}

const sources: PersonalDataSource[] = [];

/** Adds a source; registering the same key again replaces it. Sources are erased in reverse order. */
export function registerPersonalData(source: PersonalDataSource): void {
  const at = sources.findIndex((s) => s.key === source.key);
  if (at >= 0) sources[at] = source;
  else sources.push(source);
}

export function personalDataSources(): readonly PersonalDataSource[] {
  return sources;
}

/**
 * The subject with every address the person has proved they hold (`emails`): the one given, the account's own and
 * those the sources know (former addresses, my-data links opened while signed in, confirmed sign-ups made while
 * signed in). Export, erasure and the consent list all look data up by all of them.
 */
export async function resolveSubject(ctx: SourceContext, subject: DataSubject): Promise<DataSubject> {
  if (subject.emails) return subject;
  const emails = new Set(subjectAddresses(subject));
  if (subject.accountId) {
    const account = await ctx.db
      .selectFrom("accounts")
      .select("email")
      .where("id", "=", subject.accountId)
      .executeTakeFirst();
    if (account) emails.add(account.email.toLowerCase());
    const others = new Set<string>();
    for (const source of sources) {
      for (const e of (await source.addresses?.(ctx, subject.accountId)) ?? []) others.add(e.trim().toLowerCase());
    }
    others.delete(subject.email.toLowerCase());
    if (account) others.delete(account.email.toLowerCase());
    // An address that is now another account's (e.g. a former address someone else signed up with) is theirs.
    const taken = others.size
      ? await ctx.db
          .selectFrom("accounts")
          .select("email")
          .where("email", "in", [...others])
          .where("id", "!=", subject.accountId)
          .execute()
      : [];
    for (const t of taken) others.delete(t.email.toLowerCase());
    for (const e of others) emails.add(e);
  }
  return { ...subject, emails: [...emails] };
}

/**
 * The download as a zip stream: data.json with every source's part, plus the files (original photos) they add.
 * The sources' rows are collected before this resolves (so a failure is an ordinary error answer); the files are
 * read one at a time while the stream is read (core/http/zip-stream.ts). Both download routes send this stream.
 */
export async function streamPersonalData(ctx: SourceContext, given: DataSubject): Promise<Readable> {
  const subject = await resolveSubject(ctx, given);
  const data: Record<string, unknown> = {
    exportedAt: ctx.now.toISOString(),
    about: "Everything this platform holds about you. Photos are in the photos folder.",
  };
  const files = new Map<string, ExportedFile>();
  for (const source of sources) {
    const part = await source.collect(ctx, subject);
    data[source.key] = part.data;
    // A later file with the same path replaces the earlier one.
    for (const f of part.files ?? []) files.set(f.path, f);
  }
  data.consents = await listConsents(ctx, subject);
  const json = strToU8(`${JSON.stringify(data, null, 2)}\n`);
  const entries: ZipEntry[] = [{ path: "data.json", compress: true, read: async () => json }];
  for (const f of files.values()) {
    entries.push({ path: f.path, compress: worthCompressing(f.path), read: "data" in f ? async () => f.data : f.read });
  }
  return zipStream(entries);
}

/** The download in memory, through the same stream: for tests and tools, never for an HTTP answer. */
export async function exportPersonalData(ctx: SourceContext, subject: DataSubject): Promise<Uint8Array> {
  return new Uint8Array(await zipToBuffer(await streamPersonalData(ctx, subject)));
}

/**
 * Erases the person's data from every source in one transaction (all or nothing), found by their account and
 * every address they hold (resolveSubject); then makes the erased bytes leave the database files (SQLite: the WAL
 * truncated, `secure_delete` having zeroed them in the pages; PostgreSQL: the tables vacuumed).
 */
export async function erasePersonalData(ctx: SourceContext, given: DataSubject, options: EraseOptions): Promise<void> {
  const subject = await resolveSubject(ctx, given);
  await ctx.db.transaction().execute(async (tx) => {
    if (subject.accountId) await keepAnAdmin(tx, subject.accountId, "confirm");
    for (const source of [...sources].reverse()) await source.erase({ ...ctx, db: tx }, subject, options);
  });
  await reclaimErasedBytes(
    ctx.db,
    sources.flatMap((s) => s.tables ?? []),
  );
}

export async function listConsents(ctx: SourceContext, given: DataSubject): Promise<ConsentRecord[]> {
  const subject = await resolveSubject(ctx, given);
  const all: ConsentRecord[] = [];
  for (const source of sources) {
    for (const c of (await source.consents?.(ctx, subject)) ?? []) all.push({ ...c, id: `${source.key}:${c.id}` });
  }
  return all;
}

/** Withdraws the consent `consentId` ("<source key>:<id>", from the form field `consent`); a 400 for a bad row id. */
export async function withdrawConsent(ctx: SourceContext, given: DataSubject, consentId: string): Promise<boolean> {
  const subject = await resolveSubject(ctx, given);
  const colon = consentId.indexOf(":");
  if (colon <= 0) return false;
  const source = sources.find((s) => s.key === consentId.slice(0, colon));
  if (source?.withdrawRow) {
    const keyed = parseKeyedId(consentId);
    if (!keyed) throw badId("consent");
    return source.withdrawRow(ctx, subject, keyed.id);
  }
  return (await source?.withdraw?.(ctx, subject, consentId.slice(colon + 1))) ?? false;
}
