import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../../test/helpers/app.js";
import { jpegWithGps } from "../../test/helpers/images.js";
import { JobRunner } from "../core/jobs/runner.js";
import { photoKey } from "../core/media/images.js";
import { mediaStorage } from "../core/media/storage.js";
import { keptPhotoToken, readKeptPhotoToken } from "./kept-photos.js";
import { MIN_FILL_MS } from "./routes.js";

const HOUR = 60 * 60_000;

describe("kept photo tokens", () => {
  const secret = "s".repeat(40);
  const hash = "ab".repeat(32);

  it("round-trip the hash and the file name", () => {
    const token = keptPhotoToken(secret, hash, "IMG 1.jpg");
    expect(readKeptPhotoToken(secret, token)).toEqual({ token, hash, name: "IMG 1.jpg" });
  });

  it("refuse tokens that were changed or signed with another secret", () => {
    const token = keptPhotoToken(secret, hash, "a.jpg");
    const [, name, mac] = token.split(".");
    expect(readKeptPhotoToken(secret, `${"cd".repeat(32)}.${name}.${mac}`)).toBeNull();
    expect(readKeptPhotoToken(secret, `${hash}.${Buffer.from("b.jpg").toString("base64url")}.${mac}`)).toBeNull();
    expect(readKeptPhotoToken("t".repeat(40), token)).toBeNull();
    expect(readKeptPhotoToken(secret, `${token}.x`)).toBeNull();
    expect(readKeptPhotoToken(secret, "../../etc/passwd")).toBeNull();
  });
});

describeEachDb("photos kept for a form that was never sent", (dialect) => {
  let t: TestApp;
  let offset = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now: () => new Date(Date.now() + offset) });
  });
  afterAll(async () => t?.close());

  const fields = {
    category: "pothole",
    title: "Pothole by the war memorial",
    description: "Deep hole on the corner.",
    lat: "50.98650",
    lng: "-2.04400",
    "attribute[road_or_pavement]": "road",
    website: "",
    action: "send",
  };

  async function post(values: Record<string, string | string[]>, photo?: Buffer) {
    const _csrf = await formToken(t.app, "/report?category=pothole");
    offset += MIN_FILL_MS + 1000;
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...fields, ...values, _csrf })) {
      for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
    }
    if (photo) form.append("photos", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "p.jpg");
    return t.app.inject({ method: "POST", url: "/report", payload: form });
  }

  async function keptToken(photo: Buffer): Promise<string> {
    const res = await post({ title: "" }, photo);
    expect(res.statusCode).toBe(400);
    const token = /name="kept_photo" value="([^"]+)"/.exec(res.body)?.[1];
    if (!token) throw new Error("no kept photo in the form");
    return token;
  }

  it("are deleted after a day unless a report uses them; a report's photos stay", async () => {
    const storage = mediaStorage(t.config);
    const jobs = t.app.civic.workers.find((w) => w.name === "jobs") as JobRunner;
    expect(jobs).toBeInstanceOf(JobRunner);
    const abandoned = (await keptToken(await jpegWithGps(300, 200, "#aa3333"))).split(".")[0] as string;
    const usedToken = await keptToken(await jpegWithGps(300, 200, "#33aa33"));
    const used = usedToken.split(".")[0] as string;
    expect((await post({ kept_photo: usedToken })).statusCode).toBe(303);
    const exists = (hash: string) => storage.has(photoKey(hash, "full"));
    expect(await exists(abandoned)).toBe(true);

    expect(await jobs.runDue()).toContain("kept-photo-cleanup");
    offset += 23 * HOUR;
    expect(await jobs.runDue()).toContain("kept-photo-cleanup");
    expect(await exists(abandoned)).toBe(true);

    offset += 2 * HOUR;
    expect(await jobs.runDue()).toContain("kept-photo-cleanup");
    expect(await exists(abandoned)).toBe(false);
    expect(await storage.has(photoKey(abandoned, "thumb"))).toBe(false);
    expect(await exists(used)).toBe(true);
    expect(await storage.has(photoKey(used, "thumb"))).toBe(true);
    expect(await t.app.civic.database.db.selectFrom("kept_photos").selectAll().execute()).toEqual([]);
    const photo = await t.app.inject(`/photos/${used}.jpg`);
    expect(photo.statusCode).toBe(200);
  });

  it("a photo carried again by a re-sent form is kept a day from then", async () => {
    const storage = mediaStorage(t.config);
    const jobs = t.app.civic.workers.find((w) => w.name === "jobs") as JobRunner;
    const token = await keptToken(await jpegWithGps(300, 200, "#3333aa"));
    const hash = token.split(".")[0] as string;
    offset += 20 * HOUR;
    expect((await post({ title: "", kept_photo: token })).statusCode).toBe(400);
    offset += 20 * HOUR;
    await jobs.runDue();
    expect(await storage.has(photoKey(hash, "full"))).toBe(true);
    offset += 5 * HOUR;
    await jobs.runDue();
    expect(await storage.has(photoKey(hash, "full"))).toBe(false);
  });
});
