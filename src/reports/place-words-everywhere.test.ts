import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { jpegWithGps } from "../../test/helpers/images.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { type SignedIn, signInAs } from "../../test/helpers/staff.js";
import { submitReport } from "./submit.js";

/** 42 m due south of the demo gazetteer's "Bus stop outside the Post Office" (50.9861, -2.0431). */
const POINT = { lat: 50.9861 - 42 / 111_320, lng: -2.0431 };
const WORDS = "About 40 m from Bus stop outside the Post Office, near High Street";
const COORDS = POINT.lat.toFixed(5);

/** The `<li>` (or table row) of a list of reports that names a reference. */
function listItem(body: string, reference: string): string {
  const items = body.match(/<(li|tr)[^>]*>[\s\S]*?<\/\1>/g) ?? [];
  return items.find((li) => li.includes(`href="/reports/${reference}"`) || li.includes(`<td>${reference}</td>`)) ?? "";
}

describeEachDb("a report's place in words, everywhere it is shown", (dialect) => {
  let t: TestApp;
  let reference = "";
  let withPhotos = "";
  let hiddenOnly = "";
  let shownHash = "";
  let shownRatio = 0;
  let hiddenHashes: string[] = [];
  let resident: SignedIn;
  let admin: SignedIn;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const civic = t.app.civic;
    const db = civic.database.db;
    resident = await signInAs(t.app, "resident@example.org", "resident");
    admin = await signInAs(t.app, "admin@example.org", "admin");
    hiddenOnly = (
      await submitReport(
        civic,
        reportSubmission({ title: "Only a hidden photo", ...POINT, photos: [{ data: await jpegWithGps(300, 300) }] }),
      )
    ).reference;
    withPhotos = (
      await submitReport(
        civic,
        reportSubmission({
          title: "Cracked kerb with photos",
          ...POINT,
          accountId: resident.accountId,
          photos: [{ data: await jpegWithGps(800, 600, "#aa3333") }, { data: await jpegWithGps(600, 800, "#33aa33") }],
        }),
      )
    ).reference;
    reference = (
      await submitReport(
        civic,
        reportSubmission({
          title: "Pothole by the bus stop",
          ...POINT,
          accountId: resident.accountId,
          reporter: { email: "reporter@example.org", name: null, phone: null, shareContact: false },
        }),
      )
    ).reference;
    const idOf = async (ref: string) =>
      (await db.selectFrom("reports").select("id").where("reference", "=", ref).executeTakeFirstOrThrow()).id;
    // The first photo of withPhotos and the only one of hiddenOnly are hidden by a moderator.
    const photos = await db
      .selectFrom("report_photos")
      .select(["id", "hash", "report_id", "position", "width", "height"])
      .where("report_id", "in", [await idOf(withPhotos), await idOf(hiddenOnly)])
      .execute();
    for (const p of photos.filter((p) => p.position === 0)) {
      await db.updateTable("report_photos").set({ visibility: "hidden" }).where("id", "=", p.id).execute();
    }
    hiddenHashes = photos.filter((p) => p.position === 0).map((p) => p.hash);
    const shown = photos.find((p) => p.position === 1);
    shownHash = shown?.hash ?? "";
    shownRatio = (shown?.width ?? 0) / (shown?.height ?? 1);
    expect(hiddenHashes).toHaveLength(2);
    expect(shownHash).toMatch(/^[0-9a-f]{64}$/);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("the report page shows the place in words first, the coordinates after it", async () => {
    const res = await t.app.inject(`/reports/${reference}`);
    expect(res.statusCode).toBe(200);
    const location = /<dt>Location<\/dt>\s*<dd>([\s\S]*?)<\/dd>/.exec(res.body)?.[1] ?? "";
    expect(location.startsWith(WORDS), location).toBe(true);
    expect(location).toContain(COORDS);
    expect(location.indexOf(COORDS)).toBeGreaterThan(location.indexOf(WORDS));
    expect(res.body).not.toContain("Marked on the map");
  });

  it("the council's mail and the reporter's confirmation say where in words", async () => {
    const mails = await t.app.civic.database.db
      .selectFrom("outbox")
      .select(["kind", "text_body", "html_body"])
      .where("subject", "like", `%${reference}%`)
      .execute();
    const forward = mails.find((m) => m.kind === "report-forward");
    const confirmation = mails.find((m) => m.kind === "report-confirmation");
    expect(forward?.text_body).toContain(WORDS);
    expect(forward?.html_body).toContain(WORDS);
    expect(forward?.text_body).not.toContain("Map pin at");
    expect(confirmation?.text_body).toContain(WORDS);
    expect(confirmation?.html_body).toContain(WORDS);
  });

  it("the confirmation carries only our words, never the place text the sender typed", async () => {
    const typed = "Ring 07700 900123 for a prize";
    const created = await submitReport(
      t.app.civic,
      reportSubmission({
        ...POINT,
        locationText: typed,
        reporter: { email: "stranger@example.org", name: null, phone: null, shareContact: false },
      }),
    );
    const mails = await t.app.civic.database.db
      .selectFrom("outbox")
      .select(["kind", "text_body"])
      .where("subject", "like", `%${created.reference}%`)
      .execute();
    const confirmation = mails.find((m) => m.kind === "report-confirmation")?.text_body ?? "";
    expect(confirmation).toContain(WORDS);
    expect(confirmation).not.toContain("07700");
    expect(mails.find((m) => m.kind === "report-forward")?.text_body).toContain(`${typed} (about 40 m from`);
  });

  it("the Atom feed's entry says where in words", async () => {
    const res = await t.app.inject("/reports.atom");
    expect(res.statusCode).toBe(200);
    const entry = (res.body.match(/<entry>[\s\S]*?<\/entry>/g) ?? []).find((e) => e.includes(reference)) ?? "";
    expect(entry).toContain(WORDS);
  });

  it("Open311 gives the place in words as the address when the reporter gave none, in JSON and XML", async () => {
    const json = await t.app.inject(`/api/v2/requests/${reference}.json`);
    expect(json.statusCode).toBe(200);
    expect((json.json() as { address: string | null }[])[0]?.address).toBe(WORDS);
    const xml = await t.app.inject(`/api/v2/requests/${reference}.xml`);
    expect(xml.body).toContain(`<address>${WORDS}</address>`);
    const list = await t.app.inject("/api/v2/requests.json");
    const listed = (list.json() as { service_request_id: string; address: string | null }[]).find(
      (r) => r.service_request_id === reference,
    );
    expect(listed?.address).toBe(WORDS);
  });

  it("the staff view of a report says where in words", async () => {
    const res = await admin.get(`/admin/reports/${reference}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(WORDS);
    expect(res.body).toContain(COORDS);
  });

  it("the lists say where in words: /reports, the home page and My reports", async () => {
    for (const [name, body] of [
      ["/reports", (await t.app.inject("/reports")).body],
      ["/", (await t.app.inject("/")).body],
      ["/account/reports", (await resident.get("/account/reports")).body],
    ] as const) {
      expect(listItem(body, reference), name).toContain(WORDS);
    }
  });

  it("lists show a public photo's thumbnail with alt text and size, never a hidden photo", async () => {
    for (const [name, body] of [
      ["/reports", (await t.app.inject("/reports")).body],
      ["/", (await t.app.inject("/")).body],
      ["/account/reports", (await resident.get("/account/reports")).body],
    ] as const) {
      const item = listItem(body, withPhotos);
      const img = /<img [^>]*>/.exec(item)?.[0] ?? "";
      expect(img, name).toContain(`src="/photos/${shownHash}-thumb.jpg"`);
      expect(img, name).toContain('alt="Photo: Cracked kerb with photos"');
      expect(img, name).toMatch(/width="\d+"/);
      expect(img, name).toMatch(/height="\d+"/);
      expect(img, name).toContain('loading="lazy"');
      for (const hash of hiddenHashes) expect(body, name).not.toContain(hash);
      if (name !== "/account/reports") expect(listItem(body, hiddenOnly), name).not.toContain("<img");
    }
    // The size given keeps the photo's shape.
    const img = /<img [^>]*>/.exec(listItem((await t.app.inject("/reports")).body, withPhotos))?.[0] ?? "";
    const w = Number(/width="(\d+)"/.exec(img)?.[1]);
    const h = Number(/height="(\d+)"/.exec(img)?.[1]);
    expect(Math.abs(w / h - shownRatio)).toBeLessThan(0.05);
  });

  it("a report that is no longer public shows no thumbnail in My reports", async () => {
    const db = t.app.civic.database.db;
    await db.updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", withPhotos).execute();
    const body = (await resident.get("/account/reports")).body;
    expect(body).toContain("Cracked kerb with photos (not public)");
    expect(body).not.toContain(shownHash);
    await db.updateTable("reports").set({ visibility: "public" }).where("reference", "=", withPhotos).execute();
  });
});
