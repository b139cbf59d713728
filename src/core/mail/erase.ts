import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { DB } from "../db/schema.js";
import { aboutHash } from "./outbox.js";

/** A LIKE pattern that finds `value` anywhere, its own % _ and \ taken literally (with ESCAPE '\'). */
function containing(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The outbox messages to or about any of these addresses (already normalised, lower-case): sent to one of them,
 * about one of them (OutgoingMail.about), or mentioning one anywhere (subject, bodies, headers, e.g. a council
 * forward with the reporter's contact details). `kinds` narrows it to messages of those kinds.
 */
export function mailAbout(addresses: readonly string[], kinds?: readonly string[]) {
  return (eb: ExpressionBuilder<DB, "outbox">) => {
    const found = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter((a) => a !== ""))];
    // No address: an empty OR, which Kysely writes as false.
    if (found.length === 0) return eb.or([]);
    const matches = [
      eb(sql<string>`lower(to_address)`, "in", found),
      eb("about_hash", "in", found.map(aboutHash)),
      ...found.flatMap((a) => {
        const like = containing(a);
        return [
          sql<boolean>`lower(subject) like ${like} escape '\\'`,
          sql<boolean>`lower(text_body) like ${like} escape '\\'`,
          sql<boolean>`lower(coalesce(html_body, '')) like ${like} escape '\\'`,
          sql<boolean>`lower(coalesce(headers, '')) like ${like} escape '\\'`,
        ];
      }),
    ];
    const any = eb.or(matches);
    return kinds ? eb.and([eb("kind", "in", [...kinds]), any]) : any;
  };
}

/**
 * Deletes, whole, every outbox message to or about these addresses (see mailAbout), queued or sent: a message
 * about a person keeps nothing of them once their data is erased (issue 27, #8). Returns how many went.
 */
export async function eraseMailAbout(
  db: Kysely<DB>,
  addresses: readonly string[],
  kinds?: readonly string[],
): Promise<number> {
  if (addresses.length === 0) return 0;
  const result = await db.deleteFrom("outbox").where(mailAbout(addresses, kinds)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
