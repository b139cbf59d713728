import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { mailboxKey } from "../email-address.js";

/**
 * Addresses that refused mail for good (an SMTP 5xx for the recipient) are suppressed: nothing more is queued or
 * sent to them. The table keeps only a SHA-256 of the normalised address, never the address, so the list cannot be
 * read back as a list of addresses; `civic mail unsuppress ADDRESS` erases an entry (e.g. when the person asks, or
 * the mailbox works again). The address is taken as its mailbox (core/email-address.ts `mailboxKey`): a refusal
 * for `ann+x@example.org` suppresses `Ann@example.org.` too.
 */
export function addressHash(address: string): string {
  return createHash("sha256")
    .update(`mail-suppression:${mailboxKey(address)}`)
    .digest("hex");
}

/** The hash entries had before they were keyed by mailbox (the address as typed, lower case), for unsuppressing. */
function earlierAddressHash(address: string): string {
  return createHash("sha256").update(`mail-suppression:${address.trim().toLowerCase()}`).digest("hex");
}

export async function isSuppressed(db: Kysely<DB>, address: string): Promise<boolean> {
  return (await suppressedOf(db, [address])).has(addressHash(address));
}

/** The hashes (addressHash) of those of these addresses that are suppressed, in one query. */
export async function suppressedOf(db: Kysely<DB>, addresses: string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await db
    .selectFrom("mail_suppressions")
    .select("address_hash")
    .where("address_hash", "in", [...new Set(addresses.map(addressHash))])
    .execute();
  return new Set(rows.map((r) => r.address_hash));
}

/** Suppresses an address (idempotent). `reason` must not contain the address. */
export async function suppressAddress(db: Kysely<DB>, address: string, reason: string, now: Date): Promise<void> {
  await db
    .insertInto("mail_suppressions")
    .values({ address_hash: addressHash(address), reason, created_at: now.toISOString() })
    .onConflict((oc) => oc.column("address_hash").doNothing())
    .execute();
}

/** Removes an address from the suppression list. Returns whether it was on it. */
export async function unsuppressAddress(db: Kysely<DB>, address: string): Promise<boolean> {
  const result = await db
    .deleteFrom("mail_suppressions")
    .where("address_hash", "in", [addressHash(address), earlierAddressHash(address)])
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
