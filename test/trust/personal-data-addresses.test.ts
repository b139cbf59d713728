import { strFromU8, unzipSync } from "fflate";
import { afterEach, beforeEach, expect, it } from "vitest";
import { makeReport, signInMailParts, tokenIn, Visitor } from "../accounts/support.js";
import { linkIn, submitSlowly } from "../community/support.js";
import { describeEachDb } from "../helpers/app.js";
import { foundInTables, trustHarness } from "./support.js";

/**
 * Issue 27, #8: personal data is found by account and by every address the person has proved for their account (a
 * former address), and mail about them is erased whole (a queued message to a councillor kept the sender's name and
 * text). Issue 33 narrowed it: a sign-up made while signed in is under the account's own address, and a my-data link
 * opened while signed in proves its address for that link alone.
 */
describeEachDb("personal data found by every address the person has used", (dialect) => {
  let h: Awaited<ReturnType<typeof trustHarness>>;
  beforeEach(async () => {
    h = await trustHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  async function download(v: Visitor) {
    const res = await v.submit("/account/data", "/account/data/download", {});
    expect(res.statusCode).toBe(200);
    const text = strFromU8(unzipSync(new Uint8Array(res.rawPayload))["data.json"]!);
    return { text, data: JSON.parse(text) as Record<string, unknown> };
  }

  async function erase(v: Visitor) {
    const res = await v.submit("/account/delete", "/account/delete", { confirm: "yes" });
    expect(res.statusCode).toBe(200);
  }

  it("a volunteer sign-up made while signed in is under the account's address, exported and erased with it", async () => {
    const main = "imogen.larkworthy@example.org";
    const other = "imogen.at.work@example.net";
    const v = new Visitor(h.app);
    await v.signIn(h, main);
    // Issue 33: signed in, the form takes the account's own address; the typed one is not used.
    await submitSlowly(h, v, "/volunteer", "/volunteer", {
      name: "Imogen Larkworthy",
      email: other,
      phone: "07700 900333",
      interests: "Footpath clearing",
      availability: "Saturdays",
      website: "",
    });
    const link = linkIn((await h.mailTo(main)).parsed.text ?? "", "/volunteer/confirm/");
    expect((await v.post(link, { _csrf: tokenIn((await v.get(link)).body) })).statusCode).toBeLessThan(400);
    // What is held under the other address, given without signing in, is not the account's.
    const report = await makeReport(h.app, { email: other, name: "Imogen L", phone: "07700 900334" });

    const { text, data } = await download(v);
    expect((data.volunteering as { email: string }[]).map((s) => s.email)).toEqual([main]);
    expect((data.reports as { reference: string }[]).map((r) => r.reference)).toEqual([]);
    expect(text).toContain("Footpath clearing");
    expect(text).not.toContain(other);

    await erase(v);
    expect(await foundInTables(h, [main, "Imogen Larkworthy", "07700 900333"])).toEqual([]);
    expect(await foundInTables(h, [report.reference])).not.toEqual([]);
  }, 120_000);

  it("an address only typed while signed in (never confirmed) does not open what others hold under it", async () => {
    const victim = "rosalind.neighbour@example.org";
    const theirs = await makeReport(h.app, { email: victim, name: "Rosalind Neighbour", phone: "07700 900999" });
    const v = new Visitor(h.app);
    await v.signIn(h, "mallory.typist@example.org");
    await submitSlowly(h, v, "/volunteer", "/volunteer", {
      name: "Mallory",
      email: victim,
      interests: "Anything",
      availability: "Any time",
      website: "",
    });
    const { text, data } = await download(v);
    // Their own sign-up is theirs, under their own address (issue 33); the other person's report is not.
    expect((data.volunteering as { email: string }[]).map((s) => s.email)).toEqual(["mallory.typist@example.org"]);
    expect(text).not.toContain(theirs.reference);
    expect(text).not.toContain("Rosalind Neighbour");
    await erase(v);
    const row = await h.app.civic.database.db
      .selectFrom("reports")
      .select(["reporter_email", "reporter_name"])
      .where("reference", "=", theirs.reference)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ reporter_email: victim, reporter_name: "Rosalind Neighbour" });
    expect(await h.app.civic.database.db.selectFrom("volunteers").select("id").execute()).toEqual([]);
  }, 120_000);

  it("a former address stays the person's; opening a my-data link while signed in adds nothing", async () => {
    const old = "ambrose.former@example.org";
    const now = "ambrose.current@example.org";
    const third = "ambrose.allotment@example.net";
    const earlier = await makeReport(h.app, { email: old, name: "Ambrose Q", phone: "07700 900555" });
    const v = new Visitor(h.app);
    await v.signIn(h, old);
    expect((await v.submit("/account", "/account/email", { email: now })).statusCode).toBe(303);
    const change = signInMailParts(await h.mailTo(now));
    const changed = await v.post("/account/email/confirm", {
      _csrf: tokenIn((await v.get(change.path)).body),
      token: change.token,
    });
    expect(changed.statusCode).toBe(303);
    // Later, something under the old address again, and something under a third address, whose my-data page the
    // person opens while signed in: opening a page changes nothing, the address is not the account's (issue 33).
    await submitSlowly(h, new Visitor(h.app), "/newsletter", "/newsletter", { email: old, website: "" });
    const allotment = await makeReport(h.app, { email: third, name: "Ambrose Q" });
    await v.submit("/my-data", "/my-data", { email: third });
    const myData = signInMailParts(await h.mailTo(third));
    expect((await v.get(myData.path)).statusCode).toBe(200);

    const { data } = await download(v);
    expect((data.reports as { reference: string }[]).map((r) => r.reference)).toEqual([earlier.reference]);
    expect(JSON.stringify(data.newsletter)).toContain(old);
    expect(JSON.stringify(data.account)).toContain(old);
    const listed = (await v.get("/account/reports")).body;
    expect(listed).toContain(earlier.reference);
    expect(listed).not.toContain(allotment.reference);

    await erase(v);
    expect(await foundInTables(h, [old, now, "07700 900555"])).toEqual([]);
    expect(await foundInTables(h, [allotment.reference])).not.toEqual([]);
  }, 120_000);

  it("a queued message to a councillor is erased whole, also through /my-data", async () => {
    const email = "tamsin.oakshott@example.org";
    const name = "Tamsin Oakshott";
    const message = "Could the parish look at the broken stile on the bridleway to Nether Combe?";
    const db = () => h.app.civic.database.db;
    const councillor = await db().selectFrom("councillors").select("id").orderBy("id").executeTakeFirstOrThrow();
    const sent = await submitSlowly(
      h,
      new Visitor(h.app),
      `/councillors/${councillor.id}`,
      `/councillors/${councillor.id}/contact`,
      { name, email, message, website: "" },
    );
    expect(sent.statusCode).toBe(200);
    // Not sent yet (the councillor's mail server is slow today).
    await db()
      .updateTable("outbox")
      .set({ next_attempt_at: new Date(Date.now() + 30 * 86_400_000).toISOString() })
      .where("kind", "like", "councillor-contact%")
      .execute();
    expect(await foundInTables(h, [name, message])).toEqual([`${name} in outbox`, `${message} in outbox`]);

    await new Visitor(h.app).submit("/my-data", "/my-data", { email });
    const { path, token } = signInMailParts(await h.mailTo(email));
    const visitor = new Visitor(h.app);
    const page = await visitor.get(path);
    const zip = await visitor.post("/my-data/download", { _csrf: tokenIn(page.body), token });
    // The download lists the message while the outbox still holds it.
    expect(strFromU8(unzipSync(new Uint8Array(zip.rawPayload))["data.json"]!)).toContain(message);
    const erased = await visitor.post("/my-data/erase", { _csrf: tokenIn(page.body), token, confirm: "yes" });
    expect(erased.statusCode).toBe(200);

    expect(
      await db().selectFrom("outbox").select("kind").where("kind", "like", "councillor-contact%").execute(),
    ).toEqual([]);
    expect(await foundInTables(h, [email, name, message])).toEqual([]);
  }, 120_000);
});
