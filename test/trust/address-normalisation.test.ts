import { afterAll, beforeAll, expect, it } from "vitest";
import { AppError } from "../../src/core/http/errors.js";
import { admitConfirmation } from "../../src/core/mail/policy.js";
import { normaliseEmail } from "../../src/core/email-address.js";
import { addBan } from "../../src/moderation/ban-list.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";

/**
 * Issue 33 #8: an address is normalised once, the same way for bans, mail caps and proofs: case, a trailing dot of
 * the domain and a `+tag` do not make another mailbox, and invisible characters are refused, not compared.
 */

const INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066"];

it("a typed address: trimmed, lower case, one trailing dot of the domain dropped, invisible characters refused", () => {
  expect(normaliseEmail("  Ann+Parish@Example.ORG. ")).toBe("ann+parish@example.org");
  expect(normaliseEmail("x@banned.example.")).toBe("x@banned.example");
  expect(normaliseEmail("x@banned.example..")).toBeNull();
  for (const c of INVISIBLE) {
    expect(normaliseEmail(`x${c}@banned.example`), JSON.stringify(c)).toBeNull();
    expect(normaliseEmail(`x@banned${c}.example`), JSON.stringify(c)).toBeNull();
  }
  expect(normaliseEmail("x\u0007@d.org")).toBeNull();
});

describeEachDb("one mailbox however the address is spelt, for bans and caps", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const civic = t.app.civic;
    await addBan(civic.database.db, { pattern: "banned.example", reason: "Spam domain", by: null }, civic.now());
    await addBan(civic.database.db, { pattern: "x@d.org", reason: "Abuse", by: null }, civic.now());
  });
  afterAll(async () => t?.close());

  const db = () => t.app.civic.database.db;

  async function reportFrom(email: string, title: string) {
    return submitReport(
      t.app.civic,
      reportSubmission({ title, reporter: { email, name: null, phone: null, shareContact: false } }),
    );
  }

  async function withheld(reference: string): Promise<boolean> {
    const row = await db()
      .selectFrom("reports")
      .select(["visibility", "withheld"])
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    return row.visibility === "hidden" && row.withheld === 1;
  }

  it("a domain ban catches the domain with a trailing dot and in capitals", async () => {
    for (const [i, email] of [
      "x@banned.example",
      "x@banned.example.",
      "x@BANNED.example",
      "X@Banned.Example.",
    ].entries()) {
      const { reference } = await reportFrom(email, `Banned domain ${i}`);
      expect(await withheld(reference), email).toBe(true);
    }
    const clean = await reportFrom("x@unbanned.example", "Clean domain");
    expect(await withheld(clean.reference)).toBe(false);
  });

  it("an address with an invisible character is refused with a form error, not stored as another mailbox", async () => {
    for (const email of ["x\u200b@banned.example", "x@banned\u200b.example", "x@d.org\u200b", "x\u2060@d.org"]) {
      const error = await reportFrom(email, "Invisible").catch((e: unknown) => e);
      expect(error, JSON.stringify(email)).toBeInstanceOf(AppError);
      expect((error as AppError).fields?.map((f) => f.field)).toEqual(["email"]);
    }
    expect(await db().selectFrom("reports").select("id").where("title", "=", "Invisible").execute()).toEqual([]);
  });

  it("an address ban catches the address with a +tag, capitals and a trailing dot", async () => {
    for (const [i, email] of ["x+a@d.org", "X@D.org.", "x+news@d.org."].entries()) {
      const { reference } = await reportFrom(email, `Banned address ${i}`);
      expect(await withheld(reference), email).toBe(true);
    }
    const other = await reportFrom("y@d.org", "Another address at the domain");
    expect(await withheld(other.reference)).toBe(false);
  });

  it("a ban entered with a trailing dot matches the address without it", async () => {
    const civic = t.app.civic;
    expect(await addBan(civic.database.db, { pattern: "other.example.", reason: "Spam", by: null }, civic.now())).toBe(
      "other.example",
    );
    const { reference } = await reportFrom("z@other.example", "Banned with a dot");
    expect(await withheld(reference)).toBe(true);
  });

  it("the per-address mail cap counts x@d.org, X@d.org. and x+1@d.org as one mailbox", async () => {
    const ctx = { secret: t.app.civic.config.sessionSecret, now: new Date("2031-03-04T10:15:00Z") };
    const answers: boolean[] = [];
    for (const address of ["cap@d.org", "CAP@d.org.", "cap+1@d.org", "Cap+2@D.ORG."]) {
      answers.push(await admitConfirmation(db(), ctx, address));
    }
    // Three confirmations an hour to one mailbox (the documented number), whatever the spelling.
    expect(answers).toEqual([true, true, true, false]);
  });
});
