import { unzipSync, strFromU8 } from "fflate";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDb } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { type AccountsHarness, accountsHarness, makeReport, signInMailParts, tokenIn, Visitor } from "./support.js";

/** Every row of every table as text, to look for an address anywhere in the database. */
async function dumpDatabase(h: AccountsHarness): Promise<string> {
  const db = h.t.db.database.db;
  const tables = (await db.introspection.getTables()).map((t) => t.name);
  expect(tables).toContain("accounts");
  let dump = "";
  for (const table of tables) {
    const rows = await sql`select * from ${sql.table(table)}`.execute(db);
    dump += `${table}: ${JSON.stringify(rows.rows)}\n`;
  }
  return dump.toLowerCase();
}

function unzip(body: Buffer) {
  const files = unzipSync(new Uint8Array(body));
  const data = JSON.parse(strFromU8(files["data.json"]!)) as Record<string, unknown> & {
    account: { email: string; sessions: unknown[] } | null;
    reports: { reference: string; reporterEmail: string; history: unknown[]; photos: string[] }[];
    consents: { id: string }[];
  };
  return { files, data };
}

describeEachDb("your reports and your data", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
  });
  afterAll(async () => h?.close());

  it("lists reports made while signed in and earlier ones made with the same address; the form asks no address", async () => {
    const earlier = await makeReport(h.app, { email: "kim@example.org", name: "Kim" });
    const strangers = await makeReport(h.app, { email: "lee@example.org" });
    const v = new Visitor(h.app);
    await v.signIn(h, "Kim@example.org");
    const form = await v.get("/report?category=pothole");
    // Signed in, the report is filed under the account's own address: the form neither asks for nor shows one.
    expect(form.body).not.toContain('name="email"');
    expect(form.body.slice(form.body.indexOf("<main"))).not.toContain("kim@example.org");

    // Sent through the web form while signed in: the report belongs to the account.
    h.advance(5_000);
    const sent = await v.post("/report", {
      _csrf: tokenIn(form.body),
      category: "pothole",
      title: "Sunken drain cover on Church Lane",
      description: "The cover has dropped about 5 cm.",
      lat: "50.98650",
      lng: "-2.04400",
      "attribute[road_or_pavement]": "road",
      email: "kim@example.org",
      name: "Kim",
      website: "",
      action: "send",
    });
    expect(sent.statusCode).toBe(303);
    const viaForm = String(sent.headers.location).split("?")[0]!.split("/").pop()!;
    const account = await h.t.db.database.db
      .selectFrom("accounts")
      .select("id")
      .where("email", "=", "kim@example.org")
      .executeTakeFirstOrThrow();
    const signedIn = await makeReport(h.app, { email: null }, account.id);
    const list = await v.get("/account/reports");
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(earlier.reference);
    expect(list.body).toContain(signedIn.reference);
    expect(list.body).toContain(viaForm);
    const row = await h.t.db.database.db
      .selectFrom("reports")
      .select("account_id")
      .where("reference", "=", viaForm)
      .executeTakeFirstOrThrow();
    expect(row.account_id).toBe(account.id);
    expect(list.body).not.toContain(strangers.reference);
    // The public report page shows no name or address, signed in or not.
    const publicPage = await h.app.inject(`/reports/${signedIn.reference}`);
    expect(publicPage.body).not.toContain("kim@example.org");
  });

  it("downloads a zip of the person's data and photos, and nobody else's", async () => {
    const photo = await jpegWithGps();
    const mine = await makeReport(h.app, { email: "max@example.org", name: "Max Moss", shareContact: true }, null, [
      photo,
    ]);
    await makeReport(h.app, { email: "ned@example.org", name: "Ned Other" });
    const v = new Visitor(h.app);
    await v.signIn(h, "max@example.org");
    const res = await v.submit("/account/data", "/account/data/download", {});
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/zip");
    const { files, data } = unzip(res.rawPayload);
    expect(data.account?.email).toBe("max@example.org");
    expect(data.account?.sessions.length).toBe(1);
    expect(data.reports.map((r) => r.reference)).toEqual([mine.reference]);
    expect(data.reports[0]!.photos).toEqual([`photos/${mine.reference}-1.jpg`]);
    expect(files[`photos/${mine.reference}-1.jpg`]?.length).toBeGreaterThan(1000);
    expect(data.consents.map((c) => c.id)).toEqual([`reports:${mine.reference}`]);
    const text = strFromU8(files["data.json"]!);
    expect(text).not.toContain("ned@example.org");
    expect(text).not.toContain("Ned Other");

    // Anonymous requests and forged my-data links reach nothing.
    const anon = await new Visitor(h.app).submit("/sign-in", "/account/data/download", {});
    expect(anon.statusCode).toBe(303);
    expect(anon.headers.location).toContain("/sign-in");
    const forged = await new Visitor(h.app).submit("/my-data", "/my-data/download", { token: "A".repeat(43) });
    expect(forged.statusCode).toBe(410);
  });

  it("withdraws a consent with one button", async () => {
    const r = await makeReport(h.app, { email: "ola@example.org", shareContact: true });
    const v = new Visitor(h.app);
    await v.signIn(h, "ola@example.org");
    const page = await v.get("/account");
    expect(page.body).toContain(`council may see your contact details for report ${r.reference}`);
    const res = await v.post("/account/consents/withdraw", {
      _csrf: tokenIn(page.body),
      consent: `reports:${r.reference}`,
    });
    expect(res.statusCode).toBe(303);
    const row = await h.t.db.database.db
      .selectFrom("reports")
      .select("share_contact")
      .where("reference", "=", r.reference)
      .executeTakeFirstOrThrow();
    expect(row.share_contact).toBe(0);
  });

  it("changes the address only when the link sent to the new one is used", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "pat@example.org");
    const asked = await v.submit("/account", "/account/email", { email: "pat.new@example.org" });
    expect(asked.statusCode).toBe(303);
    const mail = await h.mailTo("pat.new@example.org");
    const { path, token } = signInMailParts(mail);
    expect((await h.app.inject(path)).statusCode).toBe(200);
    expect((await v.get("/account")).body).toContain("pat@example.org");
    const done = await v.post("/account/email/confirm", { _csrf: tokenIn((await v.get(path)).body), token });
    expect(done.statusCode).toBe(303);
    const page = await v.get(String(done.headers.location));
    expect(page.body).toContain("pat.new@example.org");
    expect(page.body).toContain("Your email address is changed");
    const bad = await v.submit("/account", "/account/email", { email: "nope" });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="nope"');
  });

  it("deletes an account leaving no trace of the address, and the address can sign up again", async () => {
    const email = "quinn@example.org";
    const earlier = await makeReport(h.app, { email, name: "Quinn Q", phone: "07700 900123", shareContact: true });
    const v = new Visitor(h.app);
    await v.signIn(h, email);
    await v.submit("/account", "/account/password", { password: "a long and unusual passphrase" });
    // A sign-in message still waiting in the outbox is erased too.
    await new Visitor(h.app).submit("/sign-in", "/sign-in/email", { email });
    expect(await dumpDatabase(h)).toContain(email);

    const unconfirmed = await v.submit("/account/delete", "/account/delete", {});
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain("Tick the box");

    const deleted = await v.submit("/account/delete", "/account/delete", { confirm: "yes" });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.body).toContain("Your data is erased");
    expect(String(deleted.headers["set-cookie"])).toContain("Max-Age=0");
    const dump = await dumpDatabase(h);
    for (const trace of [email, "quinn q", "07700 900123"]) expect(dump.includes(trace), trace).toBe(false);
    // The report stays public, without any link to the person.
    expect((await h.app.inject(`/reports/${earlier.reference}`)).statusCode).toBe(200);

    const again = new Visitor(h.app);
    await again.signIn(h, email);
    expect((await again.get("/account/reports")).body).not.toContain(earlier.reference);
  });

  it("removes the reports from public view when asked", async () => {
    const r = await makeReport(h.app, { email: "rae@example.org" });
    const v = new Visitor(h.app);
    await v.signIn(h, "rae@example.org");
    await v.submit("/account/delete", "/account/delete", { confirm: "yes", remove_public: "yes" });
    expect((await h.app.inject(`/reports/${r.reference}`)).statusCode).toBe(410);
  });

  it("gives people without an account the same download and erase choices by email (/my-data)", async () => {
    const email = "sam@example.org";
    const r = await makeReport(h.app, { email, name: "Sam S" });
    await h.mailTo(email);
    const known = await new Visitor(h.app).submit("/my-data", "/my-data", { email });
    const unknown = await new Visitor(h.app).submit("/my-data", "/my-data", { email: "nobody-here@example.org" });
    expect(known.statusCode).toBe(200);
    expect(known.body.replace(/value="[^"]{20,}"/g, "")).toBe(unknown.body.replace(/value="[^"]{20,}"/g, ""));
    const { path, token } = signInMailParts(await h.mailTo(email));

    const v = new Visitor(h.app);
    const page = await v.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("1 report");
    expect(page.headers["set-cookie"]).toBeUndefined();
    const zip = await v.post("/my-data/download", { _csrf: tokenIn(page.body), token });
    expect(zip.statusCode).toBe(200);
    const { data } = unzip(zip.rawPayload);
    expect(data.account).toBeNull();
    expect(data.reports.map((x) => x.reference)).toEqual([r.reference]);

    const erased = await v.post("/my-data/erase", { _csrf: tokenIn(page.body), token, confirm: "yes" });
    expect(erased.statusCode).toBe(200);
    expect((await dumpDatabase(h)).includes(email)).toBe(false);
    // The link is used up with the data.
    expect((await v.get(path)).statusCode).toBe(410);
  });
});
