import { sqlIn } from "./0001_core.js";
import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Community features: ideas and their supports, project roles and dated updates, volunteer sign-ups, the
 * newsletter (subscribers, issues, one row per issue and recipient), and extra headers on outbox messages
 * (List-Unsubscribe).
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);

  await db.schema.alterTable("outbox").addColumn("headers", "text").execute();
  await db.schema
    .alterTable("projects")
    .addColumn("roles", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema.alterTable("projects").addColumn("ends_on", "text").execute();

  await db.schema
    .createTable("project_updates")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("posted_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("project_updates_project")
    .on("project_updates")
    .columns(["project_id", "posted_at"])
    .execute();

  await db.schema
    .createTable("ideas")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("category", "text")
    .addColumn("place_id", "text")
    .addColumn("location_text", "text")
    .addColumn("photo_hash", "text")
    .addColumn("status", "text", (c) =>
      c
        .notNull()
        .check(sqlIn("status", ["unconfirmed", "open", "under-consideration", "adopted", "not-taken-forward", "done"])),
    )
    .addColumn("visibility", "text", (c) =>
      c
        .notNull()
        .defaultTo("public")
        .check(sqlIn("visibility", ["public", "hidden", "removed"])),
    )
    .addColumn("response", "text")
    .addColumn("project_id", "text", (c) => c.references("projects.id").onDelete("set null"))
    .addColumn("account_id", "text", (c) => c.references("accounts.id").onDelete("set null"))
    .addColumn("email", "text")
    .addColumn("confirm_token_hash", "text", (c) => c.unique())
    .addColumn("supports", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("published_at", ts)
    .addColumn("updated_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("ideas_published").on("ideas").columns(["status", "published_at"]).execute();
  await db.schema.createIndex("ideas_account").on("ideas").column("account_id").execute();
  await db.schema.createIndex("ideas_email").on("ideas").column("email").execute();

  await db.schema
    .createTable("idea_supports")
    .addColumn("idea_id", "integer", (c) => c.notNull().references("ideas.id").onDelete("cascade"))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addPrimaryKeyConstraint("idea_supports_pk", ["idea_id", "account_id"])
    .execute();
  await db.schema.createIndex("idea_supports_account").on("idea_supports").column("account_id").execute();

  await db.schema
    .createTable("volunteers")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("project_id", "text", (c) => c.references("projects.id").onDelete("set null"))
    .addColumn("role", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("interests", "text", (c) => c.notNull())
    .addColumn("availability", "text", (c) => c.notNull())
    .addColumn("consent_text", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sqlIn("status", ["unconfirmed", "confirmed", "withdrawn"])))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "text", (c) => c.references("accounts.id").onDelete("set null"))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("confirmed_at", ts)
    .addColumn("withdrawn_at", ts)
    .execute();
  await db.schema.createIndex("volunteers_project").on("volunteers").columns(["project_id", "status"]).execute();
  await db.schema.createIndex("volunteers_email").on("volunteers").column("email").execute();

  await db.schema
    .createTable("newsletter_subscribers")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("status", "text", (c) =>
      c.notNull().check(sqlIn("status", ["unconfirmed", "confirmed", "unsubscribed"])),
    )
    .addColumn("confirm_token_hash", "text", (c) => c.unique())
    .addColumn("unsubscribe_salt", "text", (c) => c.notNull())
    .addColumn("consent_text", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("confirmed_at", ts)
    .addColumn("unsubscribed_at", ts)
    .execute();
  await db.schema
    .createIndex("newsletter_subscribers_status")
    .on("newsletter_subscribers")
    .columns(["status", "id"])
    .execute();

  await db.schema
    .createTable("newsletter_issues")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().check(sqlIn("status", ["draft", "sending", "sent"])))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .addColumn("send_started_at", ts)
    .addColumn("sent_at", ts)
    .execute();

  await db.schema
    .createTable("newsletter_sends")
    .addColumn("issue_id", "integer", (c) => c.notNull().references("newsletter_issues.id").onDelete("cascade"))
    .addColumn("subscriber_id", "integer", (c) =>
      c.notNull().references("newsletter_subscribers.id").onDelete("cascade"),
    )
    /** Null when the address was suppressed and nothing was queued. */
    .addColumn("outbox_id", "integer")
    .addColumn("created_at", ts, (c) => c.notNull())
    .addPrimaryKeyConstraint("newsletter_sends_pk", ["issue_id", "subscriber_id"])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const t of [
    "newsletter_sends",
    "newsletter_issues",
    "newsletter_subscribers",
    "volunteers",
    "idea_supports",
    "ideas",
    "project_updates",
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
