import { afterEach, beforeEach, expect, it } from "vitest";
import { makeReport, signInMailParts, tokenIn, Visitor } from "../accounts/support.js";
import { submitSlowly } from "../community/support.js";
import { describeEachDb } from "../helpers/app.js";
import { foundInSqliteFiles, foundInTables, lastVacuum, trustHarness } from "./support.js";

/**
 * Issue 27, #15: erased data leaves the disk. After /account/delete and a /my-data erasure and a restart, the raw
 * bytes of the SQLite files hold none of the erased addresses, names and phone numbers (SQLite's secure_delete
 * zeroes freed content; the WAL is truncated after an erasure). PostgreSQL: the rows are gone and the tables the
 * erasure changed were vacuumed.
 */
describeEachDb("erased personal data leaves the database files", (dialect) => {
  let h: Awaited<ReturnType<typeof trustHarness>>;
  beforeEach(async () => {
    h = await trustHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("after an account deletion and a my-data erasure and a restart, no byte holds the erased details", async () => {
    const holder = { email: "ottoline.brackenbury@example.org", name: "Ottoline Brackenbury", phone: "07700 900777" };
    const visitor = { email: "peregrine.ashdown@example.net", name: "Peregrine Ashdown", phone: "07700 900888" };
    const erased = [holder.email, holder.name, holder.phone, visitor.email, visitor.name, visitor.phone];
    // Someone else's data stays, in the same tables and the same pages.
    const kept = { email: "kept.neighbour@example.org", name: "Kept Neighbour" };
    await makeReport(h.app, { ...kept, shareContact: true });

    // An account holder with a report, a newsletter subscription and a sign-up, who deletes their account.
    await makeReport(h.app, { ...holder, shareContact: true });
    const v = new Visitor(h.app);
    await v.signIn(h, holder.email);
    await submitSlowly(h, v, "/newsletter", "/newsletter", { email: holder.email, website: "" });
    await submitSlowly(h, v, "/volunteer", "/volunteer", {
      name: holder.name,
      email: holder.email,
      phone: holder.phone,
      interests: "Litter picking",
      availability: "Weekends",
      website: "",
    });
    await h.mailTo(holder.email);
    const deleted = await v.submit("/account/delete", "/account/delete", { confirm: "yes" });
    expect(deleted.statusCode).toBe(200);

    // Someone without an account erases their data through /my-data.
    await makeReport(h.app, { ...visitor, shareContact: true });
    await new Visitor(h.app).submit("/my-data", "/my-data", { email: visitor.email });
    const { path, token } = signInMailParts(await h.mailTo(visitor.email));
    const other = new Visitor(h.app);
    const page = await other.get(path);
    const done = await other.post("/my-data/erase", { _csrf: tokenIn(page.body), token, confirm: "yes" });
    expect(done.statusCode).toBe(200);

    expect(await foundInTables(h, erased)).toEqual([]);
    expect(await foundInTables(h, [kept.email, kept.name])).toContain(`${kept.email} in reports`);
    if (dialect === "postgres") {
      for (const table of [
        "reports",
        "outbox",
        "accounts",
        "email_challenges",
        "volunteers",
        "newsletter_subscribers",
      ]) {
        expect(await lastVacuum(h, table), `${table} vacuumed`).not.toBeNull();
      }
      return;
    }
    // While the app still runs: the erasure truncated the WAL, which held the pages as they were before it.
    expect(foundInSqliteFiles(h.t.db.dataDir, erased)).toEqual([]);
    // A restart: the app and its connection closed, the file opened again and closed.
    await h.app.close();
    await h.t.db.database.close();
    await h.t.db.reopen().close();
    expect(foundInSqliteFiles(h.t.db.dataDir, erased)).toEqual([]);
    expect(foundInSqliteFiles(h.t.db.dataDir, [kept.email])).toContain(`${kept.email} in civic.db`);
  }, 120_000);
});
