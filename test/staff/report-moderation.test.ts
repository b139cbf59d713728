import { afterAll, beforeAll, expect, it } from "vitest";
import { type AccountsHarness, accountsHarness, makeReport } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * Issue 36, "the report's staff view in context": a moderator sees a report's photos (hidden ones too, marked),
 * its map and place, its flags with reasons, its moderation history and its author's counts, and hides, redacts
 * or hides one photo right there with a required reason, through the same decisions and audit as
 * /admin/moderation. The moderation queue shows a flagged item's photo and place.
 */
describeEachDb("a report's staff view: moderation in context", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let resident: SignedIn;
  let author: SignedIn;
  let reference: string;
  let other: string;
  let photoIds: number[];
  let otherPhotoId: number;

  const db = () => h.app.civic.database.db;
  const page = () => `/admin/reports/${reference}`;

  async function flag(ref: string, reason: string, note: string, kind = "report") {
    const url = `/report-this/${kind}/${ref}`;
    return resident.post(url, { reason, note }, url);
  }

  beforeAll(async () => {
    h = await accountsHarness(dialect);
    moderator = await signInAs(h.app, "mod36@example.org", "moderator");
    resident = await signInAs(h.app, "flagger36@example.org", "resident");
    author = await signInAs(h.app, "author36@example.org", "resident");
    const photos = [await jpegWithGps(800, 600), await jpegWithGps(600, 800, "#aa3366")];
    reference = (await makeReport(h.app, { email: "author36@example.org" }, author.accountId, photos)).reference;
    other = (await makeReport(h.app, { email: null }, null, [await jpegWithGps(400, 300, "#33aa66")])).reference;
    const rows = await db()
      .selectFrom("report_photos")
      .innerJoin("reports", "reports.id", "report_photos.report_id")
      .select(["report_photos.id", "reports.reference"])
      .orderBy("report_photos.id")
      .execute();
    photoIds = rows.filter((r) => r.reference === reference).map((r) => r.id);
    otherPhotoId = rows.find((r) => r.reference === other)!.id;
    expect((await flag(reference, "personal", "Shows a car's number plate")).statusCode).toBeLessThan(400);
    expect((await flag(String(photoIds[1]), "abusive", "Rude gesture", "photo")).statusCode).toBeLessThan(400);
  });
  afterAll(async () => h?.close());

  it("shows its photos, map, place in words, flags with reasons and its author's counts", async () => {
    const view = await moderator.get(page());
    expect(view.statusCode).toBe(200);
    for (const id of photoIds) expect(view.body).toContain(`/admin/reports/${reference}/photos/${id}-thumb.jpg`);
    expect(view.body).toContain('class="map report-view-map"');
    expect(view.body).toMatch(/src="\/assets\/report-view-map-[A-Z0-9]+\.js"/);
    expect(view.body).toMatch(/Map position\s*<span class="coords">50\.98650, -2\.04400/);
    expect(view.body).toContain("Shows personal information");
    expect(view.body).toContain("Shows a car's number plate");
    expect(view.body).toContain("Abusive or offensive");
    expect(view.body).toMatch(/The author's account has made 1 report, has 0 strikes/);
    expect(view.body).not.toContain("author36@example.org");
    // Its photos are served to staff at their staff address, and to nobody else there.
    const thumb = await moderator.get(`/admin/reports/${reference}/photos/${photoIds[0]}-thumb.jpg`);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers["content-type"]).toBe("image/jpeg");
    expect((await resident.get(`/admin/reports/${reference}/photos/${photoIds[0]}.jpg`)).statusCode).toBe(403);
  });

  it("hides one photo with a reason: marked hidden for staff, gone for the public, audited and in its history", async () => {
    const [hash] = await db().selectFrom("report_photos").select("hash").where("id", "=", photoIds[1]!).execute();
    expect((await h.app.inject({ method: "GET", url: `/photos/${hash!.hash}.jpg` })).statusCode).toBe(200);
    const prefix = `photo_${photoIds[1]}`;
    const res = await moderator.post(
      `${page()}/moderate`,
      { target: "photo", item: String(photoIds[1]), [`${prefix}_action`]: "hide", [`${prefix}_reason`]: "Rude" },
      page(),
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${page()}?done=moderated`);
    expect((await h.app.inject({ method: "GET", url: `/photos/${hash!.hash}.jpg` })).statusCode).toBe(404);
    const staffCopy = await moderator.get(`/admin/reports/${reference}/photos/${photoIds[1]}.jpg`);
    expect(staffCopy.statusCode).toBe(200);
    expect(staffCopy.headers["cache-control"]).toBe("private, no-store");
    const view = await moderator.get(page());
    expect(view.body).toContain("[Hidden from the public]");
    expect(view.body).toContain(`Photo ${photoIds[1]}: Hidden, by mod36@example.org. Reason: Rude`);
    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "moderation.hide")
      .where("item_id", "=", String(photoIds[1]))
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBe(moderator.accountId);
    // The author's photo was hidden: a strike, counted on the staff view.
    expect((await moderator.get(page())).body).toMatch(/has 1 strike in the last 90 days/);
  });

  it("redacts the description inline: the public page changes and an audit row is written", async () => {
    const res = await moderator.post(
      `${page()}/redact`,
      {
        redact_title: "Pothole by the war memorial",
        redact_description: "Deep hole on the corner. [number plate removed]",
        redact_reason: "A car's number plate",
      },
      page(),
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${page()}?done=redacted`);
    const pub = await h.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(pub.body).toContain("[number plate removed]");
    const audit = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "moderation.redact")
      .where("item_id", "=", reference)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.reason).toBe("A car's number plate");
    const view = await moderator.get(page());
    expect(view.body).toContain("The report: Title or description edited");
    expect(view.body).toContain("The reporter's original text");
  });

  it("refuses a missing reason with a form error (400, the form kept), never a 5xx, and changes nothing", async () => {
    const hide = await moderator.post(
      `${page()}/moderate`,
      { target: "report", moderation_action: "hide", moderation_reason: "  " },
      page(),
    );
    expect(hide.statusCode).toBe(400);
    expect(hide.body).toContain("Error: Report");
    expect(hide.body).toContain('href="#staff-moderation_reason"');
    expect(hide.body).toContain('id="staff-moderation_reason-error"');
    const redact = await moderator.post(
      `${page()}/redact`,
      { redact_title: "Kept title typed", redact_description: "x", redact_reason: "" },
      page(),
    );
    expect(redact.statusCode).toBe(400);
    expect(redact.body).toContain('href="#staff-redact_reason"');
    expect(redact.body).toContain('value="Kept title typed"');
    const row = await db().selectFrom("reports").select("visibility").where("reference", "=", reference).execute();
    expect(row[0]!.visibility).toBe("public");
  });

  it("answers forged ids, another report's photo and bad targets with a clear 4xx", async () => {
    const post = (fields: Record<string, string>, ref = reference) =>
      moderator.post(`/admin/reports/${ref}/moderate`, fields, page());
    const reason = (p: string) => ({ [`${p}_action`]: "hide", [`${p}_reason`]: "Forged" });
    const theirs = await post({ target: "photo", item: String(otherPhotoId), ...reason(`photo_${otherPhotoId}`) });
    expect(theirs.statusCode).toBe(404);
    expect((await post({ target: "photo", item: "1e9", ...reason("photo_1e9") })).statusCode).toBe(404);
    expect((await post({ target: "photo", item: "99999999999999999999" })).statusCode).toBe(404);
    expect((await post({ target: "update", item: "-1" })).statusCode).toBe(404);
    expect((await post({ target: "account", item: "1" })).statusCode).toBe(400);
    expect((await post({ target: "report", ...reason("moderation") }, "ZZZZ-ZZZZ")).statusCode).toBe(404);
    const badAction = await post({ target: "report", moderation_action: "destroy", moderation_reason: "x" });
    expect(badAction.statusCode).toBe(400);
    expect((await moderator.get(`/admin/reports/${reference}/photos/${otherPhotoId}.jpg`)).statusCode).toBe(404);
    expect((await moderator.get(`/admin/reports/${reference}/photos/1e5.jpg`)).statusCode).toBe(404);
    expect((await moderator.get(`/admin/reports/${reference}/photos/99999999999999999.jpg`)).statusCode).toBe(404);
    // The other report stays as it was.
    const [photo] = await db()
      .selectFrom("report_photos")
      .select("visibility")
      .where("id", "=", otherPhotoId)
      .execute();
    expect(photo!.visibility).toBe("public");
  });

  it("a removed report's id: a moderator's unhide is a form error, not applied; its staff view still opens", async () => {
    const admin = await signInAs(h.app, "admin36@example.org", "admin");
    const otherPage = `/admin/reports/${other}`;
    const removed = await admin.post(
      `${otherPage}/moderate`,
      { target: "report", moderation_action: "remove", moderation_reason: "Spam" },
      otherPage,
    );
    expect(removed.statusCode).toBe(303);
    expect((await moderator.get(otherPage)).statusCode).toBe(200);
    const unhide = await moderator.post(
      `${otherPage}/moderate`,
      { target: "report", moderation_action: "unhide", moderation_reason: "Looks fine" },
      otherPage,
    );
    expect(unhide.statusCode).toBe(400);
    expect(unhide.body).toContain("removed items can be changed by an admin only");
    const [row] = await db().selectFrom("reports").select("visibility").where("reference", "=", other).execute();
    expect(row!.visibility).toBe("removed");
  });

  it("refuses a signed-in person without a staff role (403) and sends anonymous visitors to sign in", async () => {
    const token = await resident.token("/account");
    const res = await h.app.inject({
      method: "POST",
      url: `${page()}/moderate`,
      headers: { cookie: resident.cookie, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        _csrf: token,
        target: "report",
        moderation_action: "hide",
        moderation_reason: "x",
      }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect((await resident.get(page())).statusCode).toBe(403);
    const redact = await resident.post(
      `${page()}/redact`,
      { redact_title: "t", redact_description: "d", redact_reason: "r" },
      "/account",
    );
    expect(redact.statusCode).toBe(403);
    const anonymous = await h.app.inject({ method: "GET", url: page() });
    expect(anonymous.statusCode).toBe(303);
  });

  it("the moderation queue shows a flagged photo's thumbnail and its report's place in words", async () => {
    const third = (await makeReport(h.app, { email: null }, null, [await jpegWithGps(300, 300)])).reference;
    const [photo] = await db()
      .selectFrom("report_photos")
      .innerJoin("reports", "reports.id", "report_photos.report_id")
      .select("report_photos.id")
      .where("reports.reference", "=", third)
      .execute();
    expect((await flag(String(photo!.id), "spam", "Advert", "photo")).statusCode).toBeLessThan(400);
    const queue = await moderator.get("/admin/moderation");
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain(`src="/admin/reports/${third}/photos/${photo!.id}-thumb.jpg"`);
    expect(queue.body).toContain("<p>Where: About 40 m from High Street</p>");
    // Its heading leads to the report's staff view, where it is moderated in context.
    expect(queue.body).toContain(`<a href="/admin/reports/${third}">Photo ${photo!.id} on report ${third}</a>`);
  });
});
