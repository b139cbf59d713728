import { readdirSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { AppError } from "../core/http/errors.js";
import { enqueueMail, withoutSuppressed } from "../core/mail/outbox.js";
import { suppressAddress } from "../core/mail/suppressions.js";
import { photoKey } from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import { hasGpsTag, jpegWithGps, pngImage } from "../../test/helpers/images.js";
import { type ReportSubmission, submitReport, titleFromDescription } from "./submit.js";

function submission(overrides: Partial<ReportSubmission> = {}): ReportSubmission {
  return {
    categoryCode: "pothole",
    title: "Deep pothole outside the bakery",
    description: "A deep pothole about 40 cm wide.\nCyclists swerve round it.",
    lat: 50.9862,
    lng: -2.0437,
    locationText: null,
    placeId: null,
    addressId: null,
    attributes: { road_or_pavement: "road", width_cm: "40" },
    photos: [],
    mediaUrl: null,
    reporter: { email: null, name: null, phone: null, shareContact: false },
    deviceId: null,
    accountId: null,
    source: "web",
    apiKeyId: null,
    ...overrides,
  };
}

async function problems(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe("validation_failed");
  return (err as AppError).fields.map((f) => f.field);
}

it("derives a title from the first sentence of the description", () => {
  expect(titleFromDescription("Streetlight out. It has been dark for a week.")).toBe("Streetlight out");
  expect(titleFromDescription("x ".repeat(100)).length).toBeLessThanOrEqual(80);
});

describeEachDb("submitReport", (dialect) => {
  let t: TestApp;
  const at = new Date("2026-11-22T12:00:00.000Z");
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now: () => at });
  });
  afterAll(async () => t?.close());

  it("stores an anonymous report with its first history entry and forwards it without contact details", async () => {
    const civic = t.app.civic;
    const result = await submitReport(civic, submission());
    expect(result.reference).toMatch(/^[0-9A-CE-Z]{4}-[0-9A-CE-Z]{4}$/);
    expect(result.serviceNotice).toMatch(/response times depend on the council/);
    const db = civic.database.db;
    const row = await db.selectFrom("reports").selectAll().where("id", "=", result.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      reference: result.reference,
      category_code: "pothole",
      status: "open",
      visibility: "public",
      reporter_email: null,
      source: "web",
      forwarded_to: "wrenvale-highways@example.org",
      forwarded_at: at.toISOString(),
      created_at: at.toISOString(),
    });
    expect(JSON.parse(row.attributes)).toEqual({ road_or_pavement: "road", width_cm: "40" });
    const history = await db.selectFrom("report_updates").selectAll().where("report_id", "=", result.id).execute();
    expect(history).toMatchObject([{ status: "open", previous_status: null }]);
    const mail = await db.selectFrom("outbox").selectAll().where("subject", "like", `%${result.reference}%`).execute();
    expect(mail.map((m) => m.kind)).toEqual(["report-forward"]);
    expect(mail[0]?.to_address).toBe("wrenvale-highways@example.org");
    expect(mail[0]?.text_body).toContain(`http://civic.test/reports/${result.reference}`);
    expect(mail[0]?.text_body).toContain("did not share contact details");
  });

  it("sends a confirmation and shares contact details with the council only with consent", async () => {
    const db = t.app.civic.database.db;
    const withConsent = await submitReport(
      t.app.civic,
      submission({
        reporter: {
          email: "Ada.Reporter@Example.org",
          name: "Ada Reporter",
          phone: "01632 960123",
          shareContact: true,
        },
      }),
    );
    const mails = await db
      .selectFrom("outbox")
      .selectAll()
      .where("subject", "like", `%${withConsent.reference}%`)
      .orderBy("kind")
      .execute();
    expect(mails.map((m) => [m.kind, m.to_address])).toEqual([
      ["report-confirmation", "ada.reporter@example.org"],
      ["report-forward", "wrenvale-highways@example.org"],
    ]);
    expect(mails[0]?.text_body).toContain(withConsent.reference);
    expect(mails[0]?.html_body).toContain(`href="http://civic.test/reports/${withConsent.reference}"`);
    expect(mails[1]?.text_body).toContain("Ada Reporter");
    expect(mails[1]?.text_body).toContain("01632 960123");

    const without = await submitReport(
      t.app.civic,
      submission({ reporter: { email: "bob@example.org", name: "Bob Private", phone: null, shareContact: false } }),
    );
    const forward = await db
      .selectFrom("outbox")
      .selectAll()
      .where("subject", "like", `%${without.reference}%`)
      .where("kind", "=", "report-forward")
      .executeTakeFirstOrThrow();
    expect(forward.text_body).not.toContain("Bob Private");
    expect(forward.text_body).not.toContain("bob@example.org");
    expect(forward.html_body).not.toContain("bob@example.org");
  });

  it("queues no confirmation to a suppressed address, and still the council's copy", async () => {
    const db = t.app.civic.database.db;
    await suppressAddress(db, "Gone@Example.org", "550 mailbox unavailable", at);
    const r = await submitReport(
      t.app.civic,
      submission({ reporter: { email: "gone@example.org", name: null, phone: null, shareContact: false } }),
    );
    const mails = await db
      .selectFrom("outbox")
      .select(["kind", "to_address"])
      .where("subject", "like", `%${r.reference}%`)
      .execute();
    expect(mails).toEqual([{ kind: "report-forward", to_address: "wrenvale-highways@example.org" }]);
    const gone = { kind: "test", to: "gone@example.org", subject: "s", text: "t", html: null };
    const here = { kind: "test", to: "here@example.org", subject: "s", text: "t", html: null };
    const [none, kept] = await Promise.all([withoutSuppressed(db, []), withoutSuppressed(db, [gone, here])]);
    expect(none).toEqual([]);
    expect(kept).toEqual([here]);
    expect(await enqueueMail(db, gone, at)).toBeNull();
    const queued = await db
      .selectFrom("outbox")
      .select("to_address")
      .where("id", "=", (await enqueueMail(db, here, at)) ?? -1)
      .execute();
    expect(queued).toEqual([{ to_address: "here@example.org" }]);
  });

  it("reads the category itself when the one given is not the one named or not public", async () => {
    const db = t.app.civic.database.db;
    const pothole = await db
      .selectFrom("categories")
      .selectAll()
      .where("code", "=", "pothole")
      .executeTakeFirstOrThrow();
    const r = await submitReport(
      t.app.civic,
      submission({ categoryCode: "pothole", category: { ...pothole, name: "Stale name" } }),
    );
    const forward = await db
      .selectFrom("outbox")
      .select("subject")
      .where("subject", "like", `%${r.reference}%`)
      .executeTakeFirstOrThrow();
    // The council's copy is built by the one forwarding path (forward.ts) from what is stored: the category's own name.
    expect(forward.subject).toContain(`(${pothole.name})`);
    // Another code than the one named, or a category that is not public: read from the database.
    const other = await submitReport(
      t.app.civic,
      submission({ categoryCode: "pothole", category: { ...pothole, code: "x", name: "Wrong" } }),
    );
    const hidden = await submitReport(
      t.app.civic,
      submission({ categoryCode: "pothole", category: { ...pothole, is_public: 0, name: "Hidden" } }),
    );
    for (const ref of [other.reference, hidden.reference]) {
      const mail = await db
        .selectFrom("outbox")
        .select("subject")
        .where("subject", "like", `%${ref}%`)
        .executeTakeFirstOrThrow();
      expect(mail.subject).toContain(`(${pothole.name})`);
    }
  });

  it("does not forward categories without a council department", async () => {
    const r = await submitReport(
      t.app.civic,
      submission({
        categoryCode: "play_area",
        attributes: { equipment: "swings" },
        title: null,
        lat: null,
        lng: null,
        placeId: "village-green",
      }),
    );
    const row = await t.app.civic.database.db
      .selectFrom("reports")
      .selectAll()
      .where("id", "=", r.id)
      .executeTakeFirstOrThrow();
    expect(row.forwarded_at).toBeNull();
    expect(row.title).toBe("A deep pothole about 40 cm wide");
    expect(row.place_id).toBe("village-green");
    // The gazetteer place gives the coordinates.
    expect([row.latitude, row.longitude]).toEqual([50.9868, -2.0446]);
    const mail = await t.app.civic.database.db
      .selectFrom("outbox")
      .select("id")
      .where("subject", "like", `%${r.reference}%`)
      .execute();
    expect(mail).toEqual([]);
  });

  it("accepts a typed description of the place alone, and an Open311 media URL", async () => {
    const r = await submitReport(
      t.app.civic,
      submission({
        lat: null,
        lng: null,
        locationText: "Outside 12 Church Lane",
        source: "open311",
        title: null,
        mediaUrl: "https://example.org/p.jpg",
      }),
    );
    const row = await t.app.civic.database.db
      .selectFrom("reports")
      .selectAll()
      .where("id", "=", r.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      location_text: "Outside 12 Church Lane",
      latitude: null,
      source: "open311",
      media_url: "https://example.org/p.jpg",
    });
  });

  it("reports every problem at once with the documented field names", async () => {
    const fields = await problems(
      submitReport(
        t.app.civic,
        submission({
          categoryCode: "pothole",
          title: "x".repeat(121),
          description: "<script>alert(1)</script>",
          lat: 51.5,
          lng: -0.1,
          attributes: { width_cm: "wide", colour: "red" },
          reporter: { email: "not-an-email", name: null, phone: "call me", shareContact: false },
        }),
      ),
    );
    expect(fields.sort()).toEqual(
      [
        "attribute[colour]",
        "attribute[road_or_pavement]",
        "attribute[width_cm]",
        "description",
        "email",
        "location",
        "phone",
        "title",
      ].sort(),
    );
    expect(await problems(submitReport(t.app.civic, submission({ categoryCode: "nope" })))).toContain("category");
    expect(
      await problems(submitReport(t.app.civic, submission({ lat: null, lng: null, description: " ", title: "" }))),
    ).toEqual(["description", "title", "location"]);
    expect(await problems(submitReport(t.app.civic, submission({ lng: null })))).toEqual(["lng"]);
    expect(
      await problems(submitReport(t.app.civic, submission({ lat: null, lng: null, placeId: "atlantis" }))),
    ).toEqual(["location"]);
    expect(await problems(submitReport(t.app.civic, submission({ description: "y".repeat(4001) })))).toEqual([
      "description",
    ]);
    expect(await problems(submitReport(t.app.civic, submission({ mediaUrl: "javascript:alert(1)" })))).toEqual([
      "media_url",
    ]);
  });

  it("cleans photos: decoded, upright, no metadata, resized, thumbnail, stored by hash", async () => {
    const photo = await jpegWithGps(2400, 1800);
    expect(hasGpsTag((await sharp(photo).metadata()).exif)).toBe(true);
    const r = await submitReport(
      t.app.civic,
      submission({ photos: [{ data: photo, filename: "IMG_0001.jpg" }, { data: await pngImage() }] }),
    );
    const rows = await t.app.civic.database.db
      .selectFrom("report_photos")
      .selectAll()
      .where("report_id", "=", r.id)
      .orderBy("position")
      .execute();
    expect(rows).toHaveLength(2);
    // Orientation 6 turns the 2400x1800 landscape upright; the long side shrinks to 1600.
    expect(rows[0]).toMatchObject({ width: 1200, height: 1600, content_type: "image/jpeg" });
    const storage = mediaStorage(t.config);
    const full = await storage.get(photoKey(rows[0]?.hash ?? "", "full"));
    const thumb = await storage.get(photoKey(rows[0]?.hash ?? "", "thumb"));
    if (!full || !thumb) throw new Error("photo not stored");
    const meta = await sharp(full).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(full.includes("SecretCam")).toBe(false);
    expect(Math.max((await sharp(thumb).metadata()).width ?? 0, (await sharp(thumb).metadata()).height ?? 0)).toBe(400);
    expect(readdirSync(join(t.config.dataDir, "media", "photos", rows[0]?.hash.slice(0, 2) ?? ""))).toContain(
      `${rows[0]?.hash}.jpg`,
    );
  });

  it("refuses files that are not images, too many photos and photos that are too large", async () => {
    expect(
      await problems(
        submitReport(
          t.app.civic,
          submission({ photos: [{ data: Buffer.from("GIF89a not really"), filename: "x.gif" }] }),
        ),
      ),
    ).toEqual(["photos"]);
    const p = await pngImage(10, 10);
    const max = t.config.uploads.maxPhotos;
    expect(
      await problems(
        submitReport(t.app.civic, submission({ photos: Array.from({ length: max + 1 }, () => ({ data: p })) })),
      ),
    ).toEqual(["photos"]);
    expect(
      await problems(
        submitReport(
          t.app.civic,
          submission({ photos: [{ data: Buffer.alloc(t.config.uploads.maxPhotoBytes + 1, 1) }] }),
        ),
      ),
    ).toEqual(["photos"]);
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
      .gif()
      .toBuffer();
    expect(await problems(submitReport(t.app.civic, submission({ photos: [{ data: gif }] })))).toEqual(["photos"]);
  });

  it("gives every report a different reference", async () => {
    const refs = await Promise.all(Array.from({ length: 10 }, () => submitReport(t.app.civic, submission())));
    expect(new Set(refs.map((r) => r.reference)).size).toBe(10);
  });

  it("retries with a new reference when one is already taken, and gives up after a few tries", async () => {
    const taken = (await submitReport(t.app.civic, submission())).reference;
    const given = [taken, taken, "Z9Z9-Z9Z9"];
    const r = await submitReport(t.app.civic, submission(), { newReference: () => given.shift() as string });
    expect(r.reference).toBe("Z9Z9-Z9Z9");
    expect(given).toEqual([]);
    const count = async () => (await t.app.civic.database.db.selectFrom("outbox").select("id").execute()).length;
    const before = await count();
    await expect(submitReport(t.app.civic, submission(), { newReference: () => taken })).rejects.toThrow();
    // Nothing of the failed attempts was left behind.
    expect(await count()).toBe(before);
  });
});
