import type { Kysely } from "kysely";
import type { DB } from "./db/schema.js";

/** What moderators can do to an item. "remove" is final for the public; the row stays for staff and exports. */
export type ModerationState = "public" | "hidden" | "removed";

/** An item as the moderation queue and the "Report this" form see it. */
export interface ModeratedItem {
  kind: string;
  /** The item's id as a string (a report's reference, an update's or photo's number, an idea's id). */
  id: string;
  /** A short label for staff and for the form heading, e.g. "Report AB12-CD34: Streetlight out". */
  label: string;
  /** The item's text as the public sees it (shown to staff in the queue). */
  excerpt: string;
  state: ModerationState;
  /** Where the public page of the item (or of what it belongs to) is, site-relative. */
  publicPath: string;
  /** Where staff see the item, site-relative. */
  staffPath: string;
  /** The author's account, when they had one (strikes and suspension). */
  authorAccountId: string | null;
  /** The author's address for the "what happened" mail, when they gave one. */
  authorEmail: string | null;
  /** A stable reference for mail subjects (never user text), e.g. "report AB12-CD34". */
  subjectRef: string;
}

/** What the moderation queue shows beside an item's text: its picture and where it is, when the kind has them. */
export interface ModeratedPreview {
  /** A small image for staff (site-relative; it may be a staff-only address for a hidden photo). */
  thumbnail: { url: string; alt: string; width: number; height: number } | null;
  /** Where the item is, in words; null when it has no place. */
  place: string | null;
}

export interface ModerationContext {
  db: Kysely<DB>;
  now: Date;
  /** The moderator's account; null or absent for the platform itself (auto-hide, suspension). */
  actorAccountId?: string | null;
}

/** A moderator's edit of an item's public text (the author's original is kept for admins to restore). */
export interface RedactedText {
  title: string;
  description: string;
}

/**
 * A kind of content that can be flagged and moderated. Features list theirs in their manifest
 * (`moderatedKinds`).
 */
export interface ModeratedKind {
  kind: string;
  /** A noun for forms and mails ("report", "update", "photo", "idea"). */
  noun: string;
  /** The item, whatever its state; null when there is no such item. */
  load(ctx: ModerationContext, id: string): Promise<ModeratedItem | null>;
  /** Sets the item's public state (hide, unhide, remove) and bumps whatever caches depend on it. */
  setState(ctx: ModerationContext, id: string, state: ModerationState): Promise<void>;
  /** The item's picture and place for the queue (staff only); null or absent when it has neither. */
  preview?(ctx: ModerationContext, id: string): Promise<ModeratedPreview | null>;
  /**
   * Replaces the item's public text with a moderator's edit, keeping the author's first original (kinds with text
   * moderators may redact; the feature writes its own columns).
   */
  redact?(ctx: ModerationContext, id: string, text: RedactedText): Promise<void>;
  /** Puts the author's original text back; throws `validation_failed` when it was never redacted. */
  restoreText?(ctx: ModerationContext, id: string): Promise<void>;
  /** Every item of an account (to hide all of a suspended person's content); ids only. */
  itemsOf?(ctx: ModerationContext, accountId: string): Promise<string[]>;
}
