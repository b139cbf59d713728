import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { personalDataSources } from "../../src/accounts/personal-data.js";
import { sourceContext } from "../../src/accounts/account-service.js";
import { purgeUnconfirmed } from "../../src/core/jobs/retention.js";
import { photoKey } from "../../src/core/media/images.js";
import { mediaStorage } from "../../src/core/media/storage.js";
import { deleteAbandonedKeptPhotos } from "../../src/reports/kept-photos.js";
import { type AccountsHarness, accountsHarness, makeReport, tokenIn } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { hasGpsTag, jpegWithGps } from "../helpers/images.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * A resident's update may carry one optional photo (issue 36), through the report form's photo pipeline: shown with
 * the update in the history (a thumbnail with alt text linking to the full size), an emailed update's only once its
 * link's page is POSTed, refused with the form and the report form's messages when it is not a photo or too large,
 * moderated as a photo, in the data download and erased with the update.
 */
describeEachDb("photos on residents' updates", (dialect) => {
  let h: AccountsHarness;
  let moderator: SignedIn;
  let resident: SignedIn;
  let reference: string;
  const db = () => h.app.civic.database.db;
  const page = () => `/reports/${reference}`;

  beforeAll(async () => {
    h = await accountsHarness(dialect, { RATE_LIMIT_WRITE_MAX: "1000", MAX_PHOTO_MB: "1" });
    moderator = await signInAs(h.app, "mod@example.org", "moderator");
    resident = await signInAs(h.app, "neighbour@example.org", "resident");
    reference = (await makeReport(h.app, { email: "reporter@example.org" })).reference;
  });
  afterAll(async () => h?.close());

  /** Opens the report page, waits like a person, and sends the update form as multipart with an optional file. */
  async function open(
    fields: Record<string, string>,
    photo?: { data: Buffer; name: string; type: string },
    who?: SignedIn,
  ) {
    const headers: Record<string, string> = who ? { cookie: who.cookie } : {};
    const res = await h.app.inject({ method: "GET", url: page(), headers });
    expect(res.body).toContain('enctype="multipart/form-data"');
    expect(res.body).toContain('name="update-photo"');
    const csrf = tokenIn(res.body);
    h.advance(4_000);
    return () => {
      const body = new FormData();
      for (const [k, v] of Object.entries({ _csrf: csrf, ...fields })) body.append(k, v);
      if (photo) body.append("update-photo", new Blob([new Uint8Array(photo.data)], { type: photo.type }), photo.name);
      body.append("website", "");
      return h.app.inject({
        method: "POST",
        url: `${page()}/update`,
        headers: { ...headers, origin: "http://civic.test" },
        payload: body,
      });
    };
  }

  const send = async (...args: Parameters<typeof open>) => (await open(...args))();

  const updatePhotos = async () =>
    db()
      .selectFrom("report_photos")
      .innerJoin("report_updates", "report_updates.id", "report_photos.update_id")
      .select(["report_photos.id", "report_photos.hash", "report_photos.update_id", "report_updates.note"])
      .orderBy("report_photos.id")
      .execute();

  /** A phone-like photo; each colour its own (photos are stored by content hash). */
  const jpeg = async (colour = "#3366aa") => ({
    data: await jpegWithGps(800, 600, colour),
    name: "hole.jpg",
    type: "image/jpeg",
  });

  it("shows a signed-in resident's photo with the update: a thumbnail with alt text linking to the full size", async () => {
    const post = await open({ "update-note": "Wider now, see the photo." }, await jpeg(), resident);
    const done = await post();
    expect(done.statusCode, done.body).toBe(303);
    // A replayed form answers the same and adds no second update or photo.
    const replay = await post();
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe(done.headers.location);
    expect(await updatePhotos()).toHaveLength(1);
    const [photo] = await updatePhotos();
    expect(photo).toMatchObject({ note: "Wider now, see the photo." });
    const shown = (await h.app.inject({ method: "GET", url: page() })).body;
    const item = shown.slice(shown.indexOf(`id="update-${photo!.update_id}"`));
    expect(item).toContain(`<a href="/photos/${photo!.hash}.jpg"><img src="/photos/${photo!.hash}-thumb.jpg"`);
    expect(item).toContain('alt="Photo added with this update (opens the full size)"');
    expect(item).toContain(`/report-this/photo/${photo!.id}`);
    // Cleaned like a report's photo: no location or camera details.
    const full = await h.app.inject({ method: "GET", url: `/photos/${photo!.hash}.jpg` });
    expect(full.statusCode).toBe(200);
    const meta = await sharp(full.rawPayload).metadata();
    expect(hasGpsTag(meta.exif)).toBe(false);
  });

  it("shows an emailed update's photo only once the link's page is POSTed", async () => {
    const sent = await send({ "update-note": "Photo by mail.", email: "walker@example.org" }, await jpeg("#aa6633"));
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body).toContain("Check your email");
    const before = await updatePhotos();
    expect(before.map((p) => p.note)).not.toContain("Photo by mail.");
    const mail = await h.mailTo("walker@example.org");
    const link = /http:\/\/civic\.test(\/reports\/updates\/publish\/[A-Za-z0-9_-]{43})/.exec(
      mail.parsed.text ?? "",
    )![1]!;
    const linkPage = await h.app.inject({ method: "GET", url: link });
    expect(linkPage.body).toContain("With the photo you chose");
    expect((await updatePhotos()).map((p) => p.note)).not.toContain("Photo by mail.");
    const confirmed = await h.app.inject({
      method: "POST",
      url: link,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `_csrf=${encodeURIComponent(tokenIn(linkPage.body))}`,
    });
    expect(confirmed.statusCode).toBe(200);
    const photo = (await updatePhotos()).find((p) => p.note === "Photo by mail.")!;
    expect(photo).toBeDefined();
    expect((await h.app.inject({ method: "GET", url: page() })).body).toContain(`/photos/${photo.hash}-thumb.jpg`);
  });

  it("refuses a file that is not a photo or is too large with the form and the report form's messages", async () => {
    const count = (await updatePhotos()).length;
    const text = await send(
      { "update-note": "Not a photo." },
      { data: Buffer.from("GIF89a not really"), name: "x.gif", type: "image/gif" },
      resident,
    );
    expect(text.statusCode).toBe(400);
    expect(text.body).toContain("“x.gif” is not an image we can read");
    expect(text.body).toContain('id="update-photo"');
    expect(text.body).toContain("Not a photo.");
    const big = await send(
      { "update-note": "Far too big." },
      { data: Buffer.alloc(1024 * 1024 + 10, 1), name: "big.jpg", type: "image/jpeg" },
      resident,
    );
    expect(big.statusCode).toBe(400);
    expect(big.body).toContain("The photo is larger than 1 MB");
    expect(big.body).toContain("Far too big.");
    expect(await updatePhotos()).toHaveLength(count);
    const notes = (await db().selectFrom("report_updates").select("note").execute()).map((u) => u.note);
    expect(notes).not.toContain("Not a photo.");
    expect(notes).not.toContain("Far too big.");
  });

  it("hides a photo a moderator hid, with its update still shown", async () => {
    const photo = (await updatePhotos()).find((p) => p.note === "Wider now, see the photo.")!;
    const decided = await moderator.post(
      "/admin/moderation/decide",
      { kind: "photo", id: String(photo.id), action: "hide", reason: "A face" },
      "/admin/moderation",
    );
    expect(decided.statusCode, decided.body).toBe(303);
    const shown = (await h.app.inject({ method: "GET", url: page() })).body;
    expect(shown).toContain("Wider now, see the photo.");
    expect(shown).not.toContain(`/photos/${photo.hash}`);
    expect((await h.app.inject({ method: "GET", url: `/photos/${photo.hash}-thumb.jpg` })).statusCode).toBe(404);
  });

  it("lists the photos in the data download and erases them with the updates", async () => {
    const source = personalDataSources(h.app.civic).find((s) => s.key === "reportUpdatesWritten")!;
    const ctx = sourceContext(h.app.civic);
    await send({ "update-note": "Waiting with a photo.", email: "walker@example.org" }, await jpeg("#33aa66"));
    const subject = { accountId: null, email: "walker@example.org" };
    const collected = await source.collect(ctx, subject);
    const data = collected.data as {
      published: { photo: string | null }[];
      waitingForConfirmation: { photo: string | null }[];
    };
    expect(data.published[0]!.photo).toMatch(/^photos\/update-/);
    expect(data.waitingForConfirmation[0]!.photo).toMatch(/^photos\/waiting-update-/);
    expect(collected.files?.length).toBe(2);
    const exported = collected.files![0]!;
    const file = "read" in exported ? await exported.read() : exported.data;
    expect(file?.length).toBeGreaterThan(0);

    const photo = (await updatePhotos()).find((p) => p.note === "Photo by mail.")!;
    await source.erase(ctx, subject, { removePublicContent: true });
    expect(await db().selectFrom("report_update_requests").selectAll().execute()).toHaveLength(0);
    expect((await h.app.inject({ method: "GET", url: page() })).body).not.toContain(`/photos/${photo.hash}`);
    expect((await h.app.inject({ method: "GET", url: `/photos/${photo.hash}.jpg` })).statusCode).toBe(404);
  });

  it("keeps a waiting update's photo while it waits; the retention of unconfirmed updates takes it", async () => {
    await send({ "update-note": "Never confirmed.", email: "forgetful@example.org" }, await jpeg("#6633aa"));
    const [waiting] = await db().selectFrom("report_update_requests").select("photo_hash").execute();
    const hash = waiting!.photo_hash!;
    const storage = mediaStorage(h.app.civic.config);
    const later = (days: number) => new Date(h.app.civic.now().getTime() + days * 86_400_000);
    await deleteAbandonedKeptPhotos(db(), storage, later(2));
    expect(await storage.get(photoKey(hash, "full"))).not.toBeNull();
    await deleteAbandonedKeptPhotos(db(), storage, later(4));
    expect(await storage.get(photoKey(hash, "full"))).not.toBeNull();
    await purgeUnconfirmed(db(), later(32));
    await deleteAbandonedKeptPhotos(db(), storage, later(32));
    expect(await storage.get(photoKey(hash, "full"))).toBeNull();
    expect(await storage.get(photoKey(hash, "thumb"))).toBeNull();
  });
});
