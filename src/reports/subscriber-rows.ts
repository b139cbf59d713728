import type { Kysely } from "kysely";
import { subjectAddresses } from "../accounts/index.js";
import type { DB } from "../core/db/schema.js";
import type { DataSubject } from "../core/personal-data.js";

/** The reports feature's tables of email sign-ups, one row per address and thing asked for (followers, alerts). */
type SignUpTable = "report_followers" | "report_alerts";

/**
 * The erasure and the consent withdrawal of a sign-up table, the same for every such table of the feature: a
 * person's rows are found by every address they have proved, and a withdrawn consent deletes its row.
 */
export function signUpRows(table: SignUpTable) {
  return {
    async erase(db: Kysely<DB>, subject: DataSubject): Promise<void> {
      await db.deleteFrom(table).where("email", "in", subjectAddresses(subject)).execute();
    },
    async withdraw(db: Kysely<DB>, subject: DataSubject, id: number): Promise<boolean> {
      const result = await db
        .deleteFrom(table)
        .where("id", "=", id)
        .where("email", "in", subjectAddresses(subject))
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
