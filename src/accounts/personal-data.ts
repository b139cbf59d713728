import type { Readable } from "node:stream";
import { strToU8 } from "fflate";
import { reclaimErasedBytes } from "../core/db/erasure.js";
import { badId, parseKeyedId } from "../core/http/ids.js";
import { eraseMailFilesWithoutMessage } from "../core/mail/mail-files.js";
import { worthCompressing, type ZipEntry, zipStream, zipToBuffer } from "../core/http/zip-stream.js";
import type { Civic } from "../core/context.js";
import type {
  ConsentRecord,
  DataSubject,
  EraseOptions,
  ExportedFile,
  SourceContext,
  PersonalDataSource,
} from "../core/personal-data.js";
import { subjectAddresses } from "../core/personal-data.js";
import { keepAnAdmin } from "./admins.js";
import { provedAddresses } from "./repository.js";

export type {
  ConsentRecord,
  DataSubject,
  EraseOptions,
  ExportedFile,
  PersonalDataSource,
  SourceContext,
} from "../core/personal-data.js";
export { subjectAddresses } from "../core/personal-data.js";

/** Every feature's sources, in the order of the feature list (src/features.ts). */
export function personalDataSources(civic: Pick<Civic, "features">): readonly PersonalDataSource[] {
  return civic.features.flatMap((f) => f.personalData ?? []);
}

/**
 * The subject with every address the person has proved they hold for their account (`emails`): the one given, the
 * account's own and the others in account_addresses (former addresses, addresses added by "Add an address").
 * Export, erasure, "My reports" and the consent list all look data up by all of them. This is the one place that
 * says which addresses are a person's: no feature adds to it, and an address becomes an account's only through a
 * flow of the accounts feature that says so and is confirmed from that mailbox.
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
    const others = new Set((await provedAddresses(ctx.db, subject.accountId)).map((e) => e.trim().toLowerCase()));
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
  for (const source of ctx.sources) {
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
 * every address they hold (resolveSubject); then deletes the .eml files of the messages erased with it (file mail,
 * no SMTP_URL) and makes the erased bytes leave the database files (SQLite: the WAL truncated, `secure_delete`
 * having zeroed them in the pages; PostgreSQL: the tables vacuumed).
 */
export async function erasePersonalData(ctx: SourceContext, given: DataSubject, options: EraseOptions): Promise<void> {
  const subject = await resolveSubject(ctx, given);
  await ctx.db.transaction().execute(async (tx) => {
    if (subject.accountId) await keepAnAdmin(tx, subject.accountId, "confirm");
    for (const source of [...ctx.sources].reverse()) await source.erase({ ...ctx, db: tx }, subject, options);
  });
  if (ctx.mailFiles) await eraseMailFilesWithoutMessage(ctx.db, ctx.mailFiles);
  await reclaimErasedBytes(
    ctx.db,
    ctx.sources.flatMap((s) => s.tables ?? []),
  );
}

export async function listConsents(ctx: SourceContext, given: DataSubject): Promise<ConsentRecord[]> {
  const subject = await resolveSubject(ctx, given);
  const all: ConsentRecord[] = [];
  for (const source of ctx.sources) {
    for (const c of (await source.consents?.(ctx, subject)) ?? []) all.push({ ...c, id: `${source.key}:${c.id}` });
  }
  return all;
}

/** Withdraws the consent `consentId` ("<source key>:<id>", from the form field `consent`); a 400 for a bad row id. */
export async function withdrawConsent(ctx: SourceContext, given: DataSubject, consentId: string): Promise<boolean> {
  const subject = await resolveSubject(ctx, given);
  const colon = consentId.indexOf(":");
  if (colon <= 0) return false;
  const source = ctx.sources.find((s) => s.key === consentId.slice(0, colon));
  if (source?.withdrawRow) {
    const keyed = parseKeyedId(consentId);
    if (!keyed) throw badId("consent");
    return source.withdrawRow(ctx, subject, keyed.id);
  }
  return (await source?.withdraw?.(ctx, subject, consentId.slice(colon + 1))) ?? false;
}
