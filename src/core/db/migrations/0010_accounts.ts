import { sqlIn } from "./0001_core.js";
import { idColumn, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Accounts, server-side sessions (only token hashes), email sign-in challenges, passkeys and their pending
 * WebAuthn challenges, consents, and the generic fixed-window counters of the database-backed rate limiter.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("name", "text")
    .addColumn("role", "text", (c) =>
      c
        .notNull()
        .defaultTo("resident")
        .check(sqlIn("role", ["resident", "moderator", "admin"])),
    )
    .addColumn("password_hash", "text")
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .addColumn("email_verified_at", ts)
    .addColumn("suspended_at", ts)
    .addColumn("suspended_reason", "text")
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("device", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("last_seen_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_account").on("sessions").column("account_id").execute();
  await db.schema.createIndex("sessions_expiry").on("sessions").column("expires_at").execute();

  await db.schema
    .createTable("email_challenges")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("purpose", "text", (c) => c.notNull().check(sqlIn("purpose", ["sign-in", "email-change", "my-data"])))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.references("accounts.id").onDelete("cascade"))
    /** Opaque handle the page that sent the message carries, to match a typed code. */
    .addColumn("handle_hash", "text", (c) => c.notNull().unique())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("code_hash", "text")
    .addColumn("failed_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("expires_at", ts, (c) => c.notNull())
    .addColumn("used_at", ts)
    .execute();
  await db.schema.createIndex("email_challenges_email").on("email_challenges").column("email").execute();
  await db.schema.createIndex("email_challenges_expiry").on("email_challenges").column("expires_at").execute();

  await db.schema
    .createTable("passkeys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("public_key", "text", (c) => c.notNull())
    .addColumn("counter", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("transports", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("last_used_at", ts)
    .execute();
  await db.schema.createIndex("passkeys_account").on("passkeys").column("account_id").execute();

  await db.schema
    .createTable("webauthn_challenges")
    .addColumn("handle_hash", "text", (c) => c.primaryKey())
    .addColumn("challenge", "text", (c) => c.notNull())
    .addColumn("account_id", "text", (c) => c.references("accounts.id").onDelete("cascade"))
    .addColumn("expires_at", ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("rate_limit_counters")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("hits", "integer", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limit_counters_expiry").on("rate_limit_counters").column("expires_at").execute();

  // Accounts own reports made while signed in; lookups of "my reports" go by account and by reporter email.
  await db.schema.createIndex("reports_account").on("reports").column("account_id").execute();
  // Reporter emails are stored lower-case, so an equality lookup finds "earlier reports with my email".
  await db.schema.createIndex("reports_reporter_email").on("reports").column("reporter_email").execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex("reports_reporter_email").ifExists().execute();
  await db.schema.dropIndex("reports_account").ifExists().execute();
  for (const t of [
    "rate_limit_counters",
    "webauthn_challenges",
    "passkeys",
    "email_challenges",
    "sessions",
    "accounts",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
