import type { Kysely } from "kysely";
import type { DB } from "./db/schema.js";
import type { Storage } from "./media/storage.js";

/**
 * Personal data: every feature that stores something about a person lists a source in its manifest
 * (`personalData`), and the data download, the erasure and the consent list (for account holders and for /my-data)
 * all go through them (src/accounts/personal-data.ts).
 */
export interface DataSubject {
  /** The person's account, when they have one. */
  accountId: string | null;
  /** The verified address (lower-case) everything without an account is held under. */
  email: string;
  /**
   * Every address the person has proved they hold for their account (lower-case, `email` among them): the account's
   * address, its former addresses and those added by "Add an address". Filled in by the accounts feature
   * (resolveSubject), the one home of identity, before any source is asked; sources read it through
   * subjectAddresses. No source can add an address: confirming a sign-up proves its address for that sign-up alone.
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
  /** Every feature's sources, in the order of the feature list (sourceContext in accounts/ fills it in). */
  sources: readonly PersonalDataSource[];
  /**
   * Where mail is written as .eml files (no SMTP_URL; core/mail/plugin.ts mailFileDirectory), or null: an erasure
   * then deletes the files of the messages it deleted too.
   */
  mailFiles?: string | null;
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
  /** The tables `erase` deletes from or updates: vacuumed after an erasure on PostgreSQL (core/db/erasure.ts). */
  tables?: readonly (keyof DB & string)[];
}
