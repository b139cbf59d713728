import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../../test/helpers/app.js";
import { jpegWithGps } from "../../test/helpers/images.js";
import { reportFormFields } from "../../test/helpers/reports.js";
import { MIN_FILL_MS } from "./routes.js";

/** A form post as a browser sends it (multipart, so photos can go along). */
function multipart(
  fields: Record<string, string | string[]>,
  files: { name: string; filename: string; data: Buffer }[] = [],
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  for (const f of files) form.append(f.name, new Blob([new Uint8Array(f.data)], { type: "image/jpeg" }), f.filename);
  return form;
}

const valid = reportFormFields();

describeEachDb("report pages", (dialect) => {
  let t: TestApp;
  let offset = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      env: { RATE_LIMIT_WRITE_MAX: "30" },
    });
  });
  afterAll(async () => t?.close());

  /** Gets a form token, then lets enough time pass for the minimum fill time. */
  async function tokenAfterFill(path = "/report?category=pothole") {
    const token = await formToken(t.app, path);
    offset += MIN_FILL_MS + 1000;
    return token;
  }

  async function post(
    fields: Record<string, string | string[]>,
    files: { name: string; filename: string; data: Buffer }[] = [],
  ) {
    return t.app.inject({ method: "POST", url: "/report", payload: multipart(fields, files) });
  }

  it("registers the mail outbox worker for the server to start", () => {
    expect(t.app.civic.workers.map((w) => w.name)).toContain("mail-outbox");
  });

  it("offers the categories, then the form with the category's questions", async () => {
    const step = await t.app.inject({ url: "/report" });
    expect(step.statusCode).toBe(200);
    expect(step.body).toContain('name="category"');
    expect(step.body).toContain("Broken or uneven pavement");
    const form = await t.app.inject({ url: "/report?category=streetlight" });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('name="attribute[fault]"');
    expect(form.body).toContain('name="attribute[lamp_post_number]"');
    expect(form.body).toContain('data-tile-url="/tiles/{z}/{x}/{y}.png"');
    expect(form.body).toContain('<option value="church-lane"');
    expect((await t.app.inject({ url: "/report?change=streetlight" })).body).toMatch(/value="streetlight"[^>]*checked/);
  });

  it("creates a report and shows the confirmation with its reference", async () => {
    const _csrf = await tokenAfterFill();
    const res = await post({ ...valid, _csrf, email: "ann@example.org", name: "Ann Example" });
    expect(res.statusCode).toBe(303);
    const ref = /^\/report\/sent\/([A-Z0-9-]+)\?proof=/.exec(res.headers.location as string)?.[1];
    expect(ref).toBeTruthy();
    const page = await t.app.inject({ url: res.headers.location as string });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<p class="reference">${ref}</p>`);
    expect(page.body).toContain("response times depend on the council");
    const mail = await t.app.civic.database.db
      .selectFrom("outbox")
      .select(["kind", "to_address"])
      .where("subject", "like", `%${ref}%`)
      .execute();
    expect(mail.map((m) => m.kind).sort()).toEqual(["report-confirmation", "report-forward"]);
  });

  it("accepts each form once: a replay, even a concurrent one, shows the first report and sends nothing again", async () => {
    const _csrf = await tokenAfterFill();
    const fields = { ...valid, _csrf, email: "once@example.org", title: "Replayed pothole" };
    const first = await post(fields);
    expect(first.statusCode).toBe(303);
    const again = await post(fields);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);

    const _csrf2 = await tokenAfterFill();
    const racing = await Promise.all([1, 2, 3].map(() => post({ ...fields, _csrf: _csrf2, title: "Raced pothole" })));
    expect(racing.map((r) => r.statusCode)).toEqual([303, 303, 303]);
    expect(new Set(racing.map((r) => r.headers.location)).size).toBe(1);

    const db = t.app.civic.database.db;
    const reports = await db
      .selectFrom("reports")
      .select("reference")
      .where("title", "in", ["Replayed pothole", "Raced pothole"])
      .execute();
    expect(reports).toHaveLength(2);
    const confirmations = await db
      .selectFrom("outbox")
      .select("id")
      .where("to_address", "=", "once@example.org")
      .execute();
    expect(confirmations).toHaveLength(2);
  });

  it("refuses a form post from an opaque origin (Origin: null)", async () => {
    const _csrf = await tokenAfterFill();
    const res = await t.app.inject({
      method: "POST",
      url: "/report",
      headers: { origin: "null" },
      payload: multipart({ ...valid, _csrf, title: "Sandboxed pothole" }),
    });
    expect(res.statusCode).toBe(403);
    const made = await t.app.civic.database.db
      .selectFrom("reports")
      .select("id")
      .where("title", "=", "Sandboxed pothole")
      .execute();
    expect(made).toHaveLength(0);
  });

  it("re-renders the form with every value kept and errors linked to their fields", async () => {
    const _csrf = await tokenAfterFill();
    const res = await post({
      ...valid,
      _csrf,
      title: "",
      description: "Kept <b>description</b>",
      lat: "",
      lng: "",
      location_text: "By the old pump",
      place: "church-lane",
      "attribute[road_or_pavement]": "",
      "attribute[width_cm]": "very wide",
      email: "not an email",
      name: "Kept Name",
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('class="error-summary"');
    for (const target of ["#title", "#description", "#email", "#attr-road_or_pavement-0", "#attr-width_cm"]) {
      expect(res.body).toContain(`href="${target}"`);
    }
    expect(res.body).toContain("Kept &lt;b>description&lt;/b>");
    expect(res.body).toContain('value="By the old pump"');
    expect(res.body).toContain('value="Kept Name"');
    expect(res.body).toContain('value="not an email"');
    expect(res.body).toContain('value="very wide"');
    expect(res.body).toMatch(/<option value="church-lane"[^>]*selected/);
    expect(res.body).toContain("<title>Error: Report an issue: Pothole");
  });

  it("keeps photos when the form comes back with problems, and refuses forged ones", async () => {
    const photo = await jpegWithGps(640, 480);
    const first = await post({ ...valid, _csrf: await tokenAfterFill(), title: "" }, [
      { name: "photos", filename: "bench.jpg", data: photo },
    ]);
    expect(first.statusCode).toBe(400);
    const token = /name="kept_photo" value="([^"]+)"/.exec(first.body)?.[1];
    expect(token).toBeTruthy();
    expect(first.body).toContain(">bench.jpg</label>");
    const hash = (token as string).split(".")[0] as string;
    const forged = `${(token as string).slice(0, -4)}AAAA`;

    const second = await post({ ...valid, _csrf: await tokenAfterFill(), kept_photo: [token as string, forged] });
    expect(second.statusCode).toBe(303);
    const ref = (second.headers.location as string).split("?")[0]!.split("/").pop() as string;
    const db = t.app.civic.database.db;
    const report = await db.selectFrom("reports").select("id").where("reference", "=", ref).executeTakeFirstOrThrow();
    const photos = await db.selectFrom("report_photos").selectAll().where("report_id", "=", report.id).execute();
    expect(photos).toHaveLength(1);
    expect(photos[0]?.width).toBe(480);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses forms filled in faster than a person can and forms with the honeypot filled", async () => {
    const before = await t.app.civic.database.db.selectFrom("reports").select("id").execute();
    const quick = await post({ ...valid, _csrf: await formToken(t.app, "/report?category=pothole") });
    expect(quick.statusCode).toBe(400);
    expect(quick.body).toContain("That was very quick");
    const bot = await post({ ...valid, _csrf: await tokenAfterFill(), website: "http://spam.example" });
    expect(bot.statusCode).toBe(400);
    expect((await t.app.civic.database.db.selectFrom("reports").select("id").execute()).length).toBe(before.length);
  });

  it("suggests open reports of the same category nearby, with and without JavaScript", async () => {
    const demo = await t.app.civic.database.db
      .selectFrom("reports")
      .select(["reference", "latitude", "longitude", "category_code", "title"])
      .where("status", "=", "open")
      .where("source", "=", "demo")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const json = await t.app.inject({
      url: `/report/nearby.json?category=${demo.category_code}&lat=${demo.latitude}&lng=${demo.longitude}`,
    });
    expect(json.statusCode).toBe(200);
    expect(json.json().reports.map((r: { reference: string }) => r.reference)).toContain(demo.reference);
    const check = await post({
      ...valid,
      category: demo.category_code,
      _csrf: await formToken(t.app, `/report?category=${demo.category_code}`),
      lat: String(demo.latitude),
      lng: String(demo.longitude),
      action: "check",
    });
    expect(check.statusCode).toBe(200);
    expect(check.body).toContain("Already reported?");
    expect(check.body).toContain(`/reports/${demo.reference}`);
    expect(check.body).not.toContain("error-summary");
  });

  it("lists public reports with filters, pagination and Atom feeds", async () => {
    const list = await t.app.inject({ url: "/reports" });
    expect(list.statusCode).toBe(200);
    expect(list.body).toMatch(/Showing 1 to 20 of \d+ reports/);
    expect(list.body).toContain('rel="next"');
    const page2 = await t.app.inject({ url: "/reports?page=2" });
    expect(page2.body).toContain('rel="prev"');
    const filtered = await t.app.inject({ url: "/reports?category=streetlight&status=fixed" });
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).toContain('href="/reports.atom?category=streetlight&amp;status=fixed"');
    const titles = [...filtered.body.matchAll(/<span class="tag status-(\w+)">/g)].map((m) => m[1]);
    expect(titles.every((s) => s === "fixed")).toBe(true);

    const feed = await t.app.inject({ url: "/reports.atom" });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers["content-type"]).toBe("application/atom+xml; charset=utf-8");
    expect(feed.body).toContain('<feed xmlns="http://www.w3.org/2005/Atom"');
    expect(feed.body).toContain('<link rel="alternate" type="text/html" href="http://civic.test/reports/');
    const perCategory = await t.app.inject({ url: "/reports/streetlight.atom" });
    expect(perCategory.statusCode).toBe(200);
    const terms = [...perCategory.body.matchAll(/<category term="([^"]+)"/g)].map((m) => m[1]);
    expect(terms.length).toBeGreaterThan(0);
    expect(terms.every((c) => c === "streetlight")).toBe(true);
    expect((await t.app.inject({ url: "/reports/nope.atom" })).statusCode).toBe(404);
  });

  it("shows a report's public page, and redirects a reference typed in lower case", async () => {
    const _csrf = await tokenAfterFill();
    const photo = await jpegWithGps(900, 700);
    const res = await post({ ...valid, _csrf, email: "secret.person@example.org", name: "Secret Person" }, [
      { name: "photos", filename: "IMG_1.jpg", data: photo },
    ]);
    expect(res.statusCode).toBe(303);
    const ref = (res.headers.location as string).split("?")[0]!.split("/").pop() as string;
    const page = await t.app.inject({ url: `/reports/${ref}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Pothole by the war memorial");
    expect(page.body).toContain("Open");
    expect(page.body).toContain("Wrenvale District Council – Highways");
    expect(page.body).not.toContain("Secret Person");
    expect(page.body).not.toContain("secret.person@example.org");
    const img = /<img src="(\/photos\/[0-9a-f]{64}-thumb\.jpg)"/.exec(page.body);
    expect(img).toBeTruthy();
    const photoRes = await t.app.inject({ url: img?.[1] as string });
    expect(photoRes.statusCode).toBe(200);
    expect(photoRes.headers["content-type"]).toBe("image/jpeg");
    expect(photoRes.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await t.app.inject({ url: `/photos/${"0".repeat(64)}.jpg` })).statusCode).toBe(404);

    const lower = await t.app.inject({ url: `/reports/${ref.toLowerCase().replace("-", "")}` });
    expect(lower.statusCode).toBe(301);
    expect(lower.headers.location).toBe(`/reports/${ref}`);
    expect((await t.app.inject({ url: "/reports/ZZZZ-ZZZZ" })).statusCode).toBe(404);

    // Hidden reports and their photos disappear; removed ones say so.
    await t.app.civic.database.db
      .updateTable("reports")
      .set({ visibility: "hidden" })
      .where("reference", "=", ref)
      .execute();
    // 410 Gone with an explanation (moderation), not 404: the page existed.
    expect((await t.app.inject({ url: `/reports/${ref}` })).statusCode).toBe(410);
    expect((await t.app.inject({ url: img?.[1] as string })).statusCode).toBe(404);
    await t.app.civic.database.db
      .updateTable("reports")
      .set({ visibility: "removed" })
      .where("reference", "=", ref)
      .execute();
    expect((await t.app.inject({ url: `/reports/${ref}` })).statusCode).toBe(410);
  });

  it("looks up a status by reference, with a clear message for an unknown one", async () => {
    const form = await t.app.inject({ url: "/status" });
    expect(form.statusCode).toBe(200);
    const found = await t.app.inject({ url: "/status?reference=demo-0001" });
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain("DEMO-0001:");
    expect(found.body).toContain('href="/reports/DEMO-0001"');
    const unknown = await t.app.inject({ url: "/status?reference=K7QM-3X9P" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain("We could not find a report with the reference K7QM-3X9P");
    expect(unknown.body).toContain('href="#reference"');
    const invalid = await t.app.inject({ url: "/status?reference=hello" });
    expect(invalid.statusCode).toBe(400);
  });
});

describe("report form rate limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp("sqlite", { seed: true, env: { RATE_LIMIT_WRITE_MAX: "2" } });
  });
  afterAll(async () => t?.close());

  it("answers 429 with Retry-After after the configured number of posts", async () => {
    const _csrf = await formToken(t.app, "/report?category=pothole");
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: "POST", url: "/report", payload: multipart({ ...valid, _csrf }) });
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(codes).toEqual([400, 400, 429]);
  });
});
