import { sql } from "kysely";
import type { PersonalDataSource } from "../core/personal-data.js";

/**
 * Moderation decisions about a person, their strikes and the flags they sent while signed in appear in their data
 * download. Erasure unlinks them: decisions stay (staff's record) without the account, flags stay counted but lose
 * the account, and strikes go with the account.
 */
export const moderationData: PersonalDataSource = {
  key: "moderation",
  tables: ["moderation_decisions", "moderation_flags", "moderation_strikes"],
  async collect({ db }, subject) {
    if (!subject.accountId) return { data: { decisions: [], strikes: [], flagsSent: [] } };
    const [decisions, strikes, flags] = await Promise.all([
      db
        .selectFrom("moderation_decisions")
        .select(["kind", "item_id as item", "action", "reason", "created_at as at"])
        .where("subject_account_id", "=", subject.accountId)
        .orderBy("id")
        .execute(),
      db
        .selectFrom("moderation_strikes")
        .select(["created_at as at", "overruled_at as overruledAt", "overrule_reason as overruleReason"])
        .where("account_id", "=", subject.accountId)
        .orderBy("id")
        .execute(),
      db
        .selectFrom("moderation_flags")
        .select(["kind", "item_id as item", "reason", "note", "created_at as at"])
        .where("flagger", "=", `account:${subject.accountId}`)
        .orderBy("id")
        .execute(),
    ]);
    return { data: { decisions, strikes, flagsSent: flags } };
  },
  async erase({ db }, subject) {
    if (!subject.accountId) return;
    await db
      .updateTable("moderation_decisions")
      .set({ subject_account_id: null })
      .where("subject_account_id", "=", subject.accountId)
      .execute();
    await db
      .updateTable("moderation_flags")
      .set({ flagger: sql<string>`${"erased:"} || ${sql.ref("id")}`, note: null })
      .where("flagger", "=", `account:${subject.accountId}`)
      .execute();
    await db.deleteFrom("moderation_strikes").where("account_id", "=", subject.accountId).execute();
  },
};
