import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { jpegWithGps } from "../../test/helpers/images.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { submitReport } from "./submit.js";

describeEachDb("report photos", (dialect) => {
  let t: TestApp;
  let hash = "";
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    const { id } = await submitReport(
      t.app.civic,
      reportSubmission({ title: "Pothole with a photo", photos: [{ data: await jpegWithGps(400, 300) }] }),
    );
    const photo = await t.app.civic.database.db
      .selectFrom("report_photos")
      .select("hash")
      .where("report_id", "=", id)
      .executeTakeFirstOrThrow();
    hash = photo.hash;
  });
  afterAll(async () => t?.close());

  it("answer If-None-Match with 304 and the same validators, for the photo and its thumbnail", async () => {
    for (const file of [`${hash}.jpg`, `${hash}-thumb.jpg`]) {
      const full = await t.app.inject(`/photos/${file}`);
      expect(full.statusCode).toBe(200);
      const etag = full.headers.etag as string;
      expect(etag).toMatch(/^"[0-9a-f]{64}(-t)?"$/);
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const res = await t.app.inject({ url: `/photos/${file}`, headers: { "if-none-match": header } });
        expect(res.statusCode, header).toBe(304);
        expect(res.body).toBe("");
        expect(res.headers.etag).toBe(etag);
        expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      }
      const other = await t.app.inject({ url: `/photos/${file}`, headers: { "if-none-match": '"something-else"' } });
      expect(other.statusCode).toBe(200);
      expect(other.rawPayload.length).toBe(full.rawPayload.length);
    }
  });

  it("a photo of a hidden report is 404 even with a matching If-None-Match", async () => {
    await t.app.civic.database.db.updateTable("reports").set({ visibility: "hidden" }).execute();
    const res = await t.app.inject({ url: `/photos/${hash}.jpg`, headers: { "if-none-match": `"${hash}"` } });
    expect(res.statusCode).toBe(404);
    await t.app.civic.database.db.updateTable("reports").set({ visibility: "public" }).execute();
  });
});
