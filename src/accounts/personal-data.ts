import { strToU8, zipSync } from "fflate";
import type { Kysely } from "kysely";
import { reclaimErasedBytes } from "../core/db/erasure.js";
import type { DB } from "../core/db/schema.js";
import type { Storage } from "../core/media/storage.js";

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

export interface ExportedFile {
  /** Path inside the zip, e.g. "photos/AB12-CD34-1.jpg". */
  path: string;
  data: Uint8Array;
}

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

/** The download: data.json with every source's part, plus the files (original photos) they add. */
export async function exportPersonalData(ctx: SourceContext, given: DataSubject): Promise<Uint8Array> {
  const subject = await resolveSubject(ctx, given);
  const data: Record<string, unknown> = {
    exportedAt: ctx.now.toISOString(),
    about: "Everything this platform holds about you. Photos are in the photos folder.",
  };
  const files: Record<string, Uint8Array> = {};
  for (const source of sources) {
    const part = await source.collect(ctx, subject);
    data[source.key] = part.data;
    for (const f of part.files ?? []) files[f.path] = f.data;
  }
  data.consents = await listConsents(ctx, subject);
  // Photos are JPEGs already; storing them uncompressed saves time and loses nothing.
  const entries: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {
    "data.json": strToU8(`${JSON.stringify(data, null, 2)}\n`),
  };
  for (const [path, bytes] of Object.entries(files)) entries[path] = [bytes, { level: 0 }];
  return zipSync(entries, { level: 6 });
}

/**
 * Erases the person's data from every source in one transaction (all or nothing), found by their account and
 * every address they hold (resolveSubject); then makes the erased bytes leave the database files (SQLite: the WAL
 * truncated, `secure_delete` having zeroed them in the pages; PostgreSQL: the tables vacuumed).
 */
export async function erasePersonalData(ctx: SourceContext, given: DataSubject, options: EraseOptions): Promise<void> {
  const subject = await resolveSubject(ctx, given);
  await ctx.db.transaction().execute(async (tx) => {
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

export async function withdrawConsent(ctx: SourceContext, given: DataSubject, consentId: string): Promise<boolean> {
  const subject = await resolveSubject(ctx, given);
  const colon = consentId.indexOf(":");
  if (colon <= 0) return false;
  const source = sources.find((s) => s.key === consentId.slice(0, colon));
  return (await source?.withdraw?.(ctx, subject, consentId.slice(colon + 1))) ?? false;
}
