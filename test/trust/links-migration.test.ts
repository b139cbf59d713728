import { Migrator, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrations } from "../../src/core/db/migrations/index.js";
import { hashToken, newToken } from "../../src/core/tokens.js";
import { accountsHarness, type AccountsHarness, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";

/**
 * Migration 0026 moves every emailed link into email_links: links mailed before it keep working (with their expiry
 * and used state), and a link used before it stays used.
 */
describeEachDb("links mailed before the move to email_links", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  it("keep working after the migration, and used ones stay used", async () => {
    const db = h.app.civic.database.db;
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      allowUnorderedMigrations: true,
    });
    expect((await migrator.migrateTo("0025_trust_personal_data")).error).toBeUndefined();

    const now = h.app.civic.now();
    const at = now.toISOString();
    const later = new Date(now.getTime() + 20 * 60_000).toISOString();
    const [signIn, usedSignIn, volunteer] = [newToken(), newToken(), newToken()];
    for (const [token, used] of [
      [signIn, null],
      [usedSignIn, at],
    ] as const) {
      await sql`insert into email_challenges (purpose, email, account_id, handle_hash, token_hash, code_hash,
                  failed_attempts, created_at, expires_at, used_at)
                values ('sign-in', 'kite@example.org', null, ${hashToken(newToken())}, ${hashToken(token)}, null, 0,
                  ${at}, ${later}, ${used})`.execute(db);
    }
    await sql`insert into volunteers (project_id, role, name, email, phone, interests, availability, consent_text,
                status, token_hash, account_id, created_at, confirmed_at, withdrawn_at)
              values (null, null, 'Kit Moss', 'kit@example.org', null, 'Hedges', 'Weekends', 'I agree', 'unconfirmed',
                ${hashToken(volunteer)}, null, ${at}, null, null)`.execute(db);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const press = async (page: string, action: string, fields: Record<string, string> = {}) => {
      const opened = await h.app.inject({ url: page });
      if (opened.statusCode !== 200) return opened.statusCode;
      const done = await h.app.inject({
        method: "POST",
        url: action,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ _csrf: tokenIn(opened.body), ...fields }).toString(),
      });
      return done.statusCode;
    };
    expect(await press(`/sign-in/link/${signIn}`, "/sign-in/link", { token: signIn })).toBe(303);
    expect(await press(`/sign-in/link/${signIn}`, "/sign-in/link", { token: signIn })).toBe(410);
    expect(await press(`/sign-in/link/${usedSignIn}`, "/sign-in/link", { token: usedSignIn })).toBe(410);
    expect(await press(`/volunteer/confirm/${volunteer}`, `/volunteer/confirm/${volunteer}`)).toBe(303);
    const row = await db.selectFrom("volunteers").select("status").where("email", "=", "kit@example.org").execute();
    expect(row).toEqual([{ status: "confirmed" }]);
  });
});
