import { sql } from "kysely";
import { sqlIn } from "./0001_core.js";
import { idColumn, isPostgres, type MigrationDb, timestampType } from "./helpers.js";

/**
 * One table for every emailed link (issue 33, core/links.ts): purpose, the address (and account) it was sent to, the
 * row it acts on, expiry and use count; only the sha256 of the token. The accounts' links move here: sign-in,
 * email-change and my-data links from `email_challenges` (which keeps the sign-in page's handle and code) and the
 * undo links from `email_change_undos` (dropped: the link holds the account and the old address). Links already
 * mailed keep working: their hashes, expiry and used state are copied.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("email_links")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("account_id", "text")
    .addColumn("ref", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .addColumn("max_uses", "integer")
    .addColumn("uses", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("first_used_at", ts)
    .addColumn("last_used_at", ts)
    .addColumn("revoked_at", ts)
    .execute();
  await db.schema.createIndex("email_links_email").on("email_links").columns(["purpose", "email"]).execute();
  await db.schema.createIndex("email_links_ref").on("email_links").columns(["purpose", "ref"]).execute();
  await db.schema.createIndex("email_links_account").on("email_links").column("account_id").execute();
  await db.schema.createIndex("email_links_expiry").on("email_links").column("expires_at").execute();

  // Challenge links: single-use for sign-in and email change, any number of uses for my-data (its page's forms).
  await sql`
    insert into email_links (purpose, token_hash, email, account_id, ref, created_at, expires_at, max_uses, uses,
                             first_used_at, last_used_at)
    select purpose, token_hash, email, account_id, cast(id as text), created_at, expires_at,
           case when purpose = 'my-data' then null else 1 end,
           case when used_at is null then 0 else 1 end, used_at, used_at
    from email_challenges`.execute(db);
  await sql`
    insert into email_links (purpose, token_hash, email, account_id, ref, created_at, expires_at, max_uses, uses,
                             first_used_at, last_used_at)
    select 'email-change-undo', token_hash, old_email, account_id, null, created_at, expires_at, 1,
           case when used_at is null then 0 else 1 end, used_at, used_at
    from email_change_undos`.execute(db);
  await db.schema.dropTable("email_change_undos").execute();

  // The features' links: idea, newsletter and follow confirmations (single-use, kept while the unconfirmed row is:
  // 30 days), volunteer sign-ups (confirm, then withdraw at any time). ideas.confirm_token_hash and
  // newsletter_subscribers.confirm_token_hash are emptied and no longer used (SQLite cannot drop a UNIQUE column);
  // volunteers.token_hash and report_followers.token_hash stay (a random value; the follower's unsubscribe salt).
  const day = 24 * 60 * 60_000;
  const copy = async (
    rows: { id: number; email: string; token_hash: string; created_at: string | Date; used?: boolean }[],
    purpose: string,
    days: number,
    maxUses: number | null,
  ) => {
    for (const r of rows) {
      const created = new Date(r.created_at);
      await db
        .insertInto("email_links")
        .values({
          purpose,
          token_hash: r.token_hash,
          email: r.email,
          account_id: null,
          ref: String(r.id),
          created_at: created.toISOString(),
          expires_at: new Date(created.getTime() + days * day).toISOString(),
          max_uses: maxUses,
          uses: r.used ? 1 : 0,
        })
        .execute();
    }
  };
  await copy(
    await db
      .selectFrom("ideas")
      .select(["id", "email", "confirm_token_hash as token_hash", "created_at"])
      .where("confirm_token_hash", "is not", null)
      .where("email", "is not", null)
      .where("status", "=", "unconfirmed")
      .execute(),
    "idea-confirm",
    30,
    1,
  );
  await copy(
    await db
      .selectFrom("newsletter_subscribers")
      .select(["id", "email", "confirm_token_hash as token_hash", "created_at"])
      .where("confirm_token_hash", "is not", null)
      .where("status", "=", "unconfirmed")
      .execute(),
    "newsletter-confirm",
    30,
    1,
  );
  await copy(
    await db
      .selectFrom("report_followers")
      .select(["id", "email", "token_hash", "created_at"])
      .where("confirmed_at", "is", null)
      .execute(),
    "report-follow",
    30,
    1,
  );
  const volunteers = await db
    .selectFrom("volunteers")
    .select(["id", "email", "token_hash", "created_at", "status"])
    .execute();
  await copy(
    volunteers.map((v) => ({ ...v, used: v.status !== "unconfirmed" })),
    "volunteer",
    10 * 366,
    null,
  );
  await db.updateTable("ideas").set({ confirm_token_hash: null }).execute();
  await db.updateTable("newsletter_subscribers").set({ confirm_token_hash: null }).execute();
  // The volunteers' column keeps a value (unique, not null) no link carries any more.
  for (const v of volunteers) {
    await db
      .updateTable("volunteers")
      .set({ token_hash: `moved:${String(v.id)}` })
      .where("id", "=", v.id)
      .execute();
  }

  // email_challenges keeps the sign-in page's handle and code; its link token is gone. SQLite cannot drop a UNIQUE
  // column, so there the table is rebuilt (nothing refers to it).
  if (isPostgres(db)) {
    await db.schema.alterTable("email_challenges").dropColumn("token_hash").execute();
    return;
  }
  await db.schema.dropIndex("email_challenges_email").execute();
  await db.schema.dropIndex("email_challenges_expiry").execute();
  await db.schema.alterTable("email_challenges").renameTo("email_challenges_old").execute();
  await db.schema
    .createTable("email_challenges")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("purpose", "text", (c) => c.notNull().check(sqlIn("purpose", ["sign-in", "email-change", "my-data"])))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.references("accounts.id").onDelete("cascade"))
    .addColumn("handle_hash", "text", (c) => c.notNull().unique())
    .addColumn("code_hash", "text")
    .addColumn("failed_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .addColumn("used_at", ts)
    .execute();
  await sql`
    insert into email_challenges (id, purpose, email, account_id, handle_hash, code_hash, failed_attempts, created_at,
                                  expires_at, used_at)
    select id, purpose, email, account_id, handle_hash, code_hash, failed_attempts, created_at, expires_at, used_at
    from email_challenges_old`.execute(db);
  await db.schema.dropTable("email_challenges_old").execute();
  await db.schema.createIndex("email_challenges_email").on("email_challenges").column("email").execute();
  await db.schema.createIndex("email_challenges_expiry").on("email_challenges").column("expires_at").execute();
}

/** Back to separate link columns: links mailed since are lost (they were only in email_links). */
export async function down(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema.dropTable("email_links").execute();
  await sql`delete from email_challenges`.execute(db);
  await db.schema.alterTable("email_challenges").addColumn("token_hash", "text").execute();
  await db.schema
    .createTable("email_change_undos")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("old_email", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .addColumn("used_at", ts)
    .execute();
}
