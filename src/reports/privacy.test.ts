import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../../test/helpers/app.js";
import { createApiKey } from "../open311/keys.js";
import { moderate, redactReport } from "../moderation/decisions.js";
import { jpegWithGps } from "../../test/helpers/images.js";
import { changeStatus } from "./events.js";
import { MIN_FILL_MS } from "./routes.js";
import { submitReport } from "./submit.js";

/**
 * The privacy invariant: a reporter's name, email, phone, device and account ids never appear in any public page,
 * feed, API response or export. Reports are submitted through the web form and through Open311 with unique
 * values, then every public representation is searched for them.
 */
describeEachDb("reporter privacy", (dialect) => {
  let t: TestApp;
  let offset = 0;
  const unique = `q${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const secrets = {
    webName: `Zebulon ${unique}web`,
    webEmail: `${unique}.web@example.org`,
    apiFirst: `Quintessa`,
    apiLast: `${unique}api`,
    apiEmail: `${unique}.api@example.org`,
    apiPhone: "07700 900461",
    device: `device-${unique}`,
    account: `account-${unique}`,
  };
  const refs: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, now: () => new Date(Date.now() + offset) });
    const _csrf = await formToken(t.app, "/report?category=streetlight");
    offset += MIN_FILL_MS + 1000;
    const form = new FormData();
    const fields: Record<string, string> = {
      _csrf,
      category: "streetlight",
      title: "Lamp out near the pound",
      description: "The lamp has been out for a week.",
      lat: "50.9900",
      lng: "-2.0450",
      "attribute[fault]": "out",
      email: secrets.webEmail,
      name: secrets.webName,
      share_contact: "yes",
      website: "",
      action: "send",
    };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const web = await t.app.inject({ method: "POST", url: "/report", payload: form });
    expect(web.statusCode).toBe(303);
    refs.push((web.headers.location as string).split("?")[0]!.split("/").pop() as string);

    if (t.app.hasRoute({ method: "POST", url: "/api/v2/requests.json" })) {
      const key = await createApiKey(t.app.civic.database.db, "privacy test", new Date());
      const api = await t.app.inject({
        method: "POST",
        url: "/api/v2/requests.json",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({
          api_key: key.key,
          service_code: "pothole",
          lat: "50.9862",
          long: "-2.0437",
          description: "Pothole reported through the API.",
          "attribute[road_or_pavement]": "road",
          email: secrets.apiEmail,
          first_name: secrets.apiFirst,
          last_name: secrets.apiLast,
          phone: secrets.apiPhone,
          device_id: secrets.device,
          account_id: secrets.account,
        }).toString(),
      });
      expect(api.statusCode, api.body).toBeLessThan(300);
      const body = api.json() as { service_request_id: string }[];
      refs.push(body[0]?.service_request_id as string);
    }
  });
  afterAll(async () => t?.close());

  /** Every public output the crawl reads, with the report pages and API entries of `references`. */
  async function publicPaths(references: string[]): Promise<Set<string>> {
    const db = t.app.civic.database.db;
    const categories = await db.selectFrom("categories").select("code").execute();
    const total = Number(
      (
        await db
          .selectFrom("reports")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

    const paths = new Set<string>([
      "/",
      "/reports",
      "/reports.atom",
      "/reports.atom?category=streetlight",
      "/status",
      "/llms.txt",
      "/sitemap.xml",
      "/openapi.json",
      "/openapi.yaml",
      "/data/businesses-canonical.json",
      "/api/v1/businesses",
      "/api/v2/services.json",
      "/api/v2/requests.json",
      "/api/v2/requests.xml",
      "/api/v2/requests.json?status=open",
      "/api/v2/requests.json?status=closed",
      "/stats",
      "/stats.json",
      "/report?category=streetlight",
      "/report/nearby.json?category=streetlight&lat=50.99&lng=-2.045",
      "/report/nearby.json?category=pothole&lat=50.9862&lng=-2.0437",
    ]);
    for (let page = 1; page <= Math.ceil(total / 20); page++) paths.add(`/reports?page=${page}`);
    for (const c of categories) {
      paths.add(`/reports/${c.code}.atom`);
      paths.add(`/reports?category=${c.code}`);
    }
    for (const ref of references) {
      paths.add(`/reports/${ref}`);
      paths.add(`/report/sent/${ref}`);
      paths.add(`/status?reference=${ref}`);
      paths.add(`/api/v2/requests/${ref}.json`);
      paths.add(`/api/v2/requests/${ref}.xml`);
    }

    return paths;
  }

  it("never shows the reporter's details on any public page, feed or API", async () => {
    const db = t.app.civic.database.db;
    // The details were stored (so the test can fail) …
    const stored = await db.selectFrom("reports").selectAll().where("reference", "in", refs).execute();
    expect(stored.map((r) => r.reporter_email).sort()).toEqual(
      [secrets.webEmail, ...(refs.length > 1 ? [secrets.apiEmail] : [])].sort(),
    );
    const paths = await publicPaths(refs);

    const needles = [
      secrets.webName,
      secrets.webEmail,
      secrets.apiEmail,
      secrets.apiLast,
      secrets.device,
      secrets.account,
      unique,
      secrets.apiPhone,
      secrets.apiPhone.replace(/\s/g, ""),
    ];
    const hits: string[] = [];
    let checked = 0;
    for (const url of paths) {
      const res = await t.app.inject({ url });
      if (res.statusCode === 404 && !url.includes(refs[0] as string)) continue;
      expect(res.statusCode, url).toBeLessThan(400);
      checked++;
      const body = res.body.toLowerCase();
      for (const n of needles) if (body.includes(n.toLowerCase())) hits.push(`${url}: ${n}`);
      for (const [name, value] of Object.entries(res.headers)) {
        for (const n of needles)
          if (String(value).toLowerCase().includes(n.toLowerCase())) hits.push(`${url} header ${name}: ${n}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(hits).toEqual([]);

    // … and the reports themselves are public, so the pages above did show them.
    for (const ref of refs) {
      expect((await t.app.inject({ url: `/reports/${ref}` })).statusCode).toBe(200);
      expect((await t.app.inject({ url: "/reports.atom" })).body).toContain(ref);
    }
  });

  it("leaves hidden and removed content out of every public output", async () => {
    const civic = t.app.civic;
    const db = civic.database.db;
    const mark = (what: string) => `${what}${unique}`;
    const report = (title: string, description: string, photos: Buffer[] = []) =>
      submitReport(civic, {
        categoryCode: "pothole",
        title,
        description,
        lat: 50.9863,
        lng: -2.0439,
        locationText: null,
        placeId: null,
        addressId: null,
        attributes: { road_or_pavement: ["road"] },
        photos: photos.map((data) => ({ data })),
        mediaUrl: null,
        reporter: { email: null, name: null, phone: null, shareContact: false },
        deviceId: null,
        accountId: null,
        source: "web",
        apiKeyId: null,
      });
    const actor = { accountId: null, role: "admin" as const };
    const hidden = await report(mark("hiddentitle"), "A report a moderator hides.");
    const removed = await report(mark("removedtitle"), mark("removeddescription"));
    const kept = await report("A report that stays public", "Its photo and one update are hidden.", [
      await jpegWithGps(),
    ]);
    const redacted = await report("Redacted report", `Call ${mark("redactedphone")} about this.`);
    await changeStatus(db, kept.id, "investigating", mark("hiddenupdate"), civic.now());
    const update = await db
      .selectFrom("report_updates")
      .select("id")
      .where("report_id", "=", kept.id)
      .where("status", "=", "investigating")
      .executeTakeFirstOrThrow();
    const photo = await db
      .selectFrom("report_photos")
      .select(["id", "hash"])
      .where("report_id", "=", kept.id)
      .executeTakeFirstOrThrow();

    const reason = "Breaks the terms.";
    await moderate(civic, { kind: "report", id: hidden.reference, action: "hide", reason, actor });
    await moderate(civic, { kind: "report", id: removed.reference, action: "remove", reason, actor });
    await moderate(civic, { kind: "photo", id: String(photo.id), action: "hide", reason, actor });
    await moderate(civic, { kind: "update", id: String(update.id), action: "hide", reason, actor });
    await redactReport(civic, {
      reference: redacted.reference,
      title: "Redacted report",
      description: "Call [removed by a moderator] about this.",
      reason,
      actor,
    });

    const references = [hidden.reference, removed.reference, kept.reference, redacted.reference];
    const paths = await publicPaths(references);
    for (const size of ["", "-thumb"]) paths.add(`/photos/${photo.hash}${size}.jpg`);
    const needles = [
      mark("hiddentitle"),
      mark("removedtitle"),
      mark("removeddescription"),
      mark("redactedphone"),
      mark("hiddenupdate"),
      photo.hash,
      hidden.reference,
      removed.reference,
    ];
    const hits: string[] = [];
    for (const url of paths) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBeLessThan(500);
      const own = [hidden.reference, removed.reference, photo.hash].some((x) => url.includes(x));
      // The hidden items' own addresses answer 404 or 410; their reference may appear there, nothing else.
      const body = res.body.toLowerCase();
      for (const n of needles) {
        if (own && (n === hidden.reference || n === removed.reference || n === photo.hash)) continue;
        if (body.includes(n.toLowerCase())) hits.push(`${url}: ${n}`);
      }
      // The sender's own "sent" page and the status look-up name only the reference.
      if (own && !url.startsWith("/report/sent/") && !url.startsWith("/status")) {
        expect([404, 410], url).toContain(res.statusCode);
      }
    }
    expect(hits).toEqual([]);

    // The public part of what was moderated is still shown, so the crawl did read those pages.
    const keptPage = await t.app.inject({ url: `/reports/${kept.reference}` });
    expect(keptPage.statusCode).toBe(200);
    expect(keptPage.body).toContain("Its photo and one update are hidden.");
    const redactedPage = await t.app.inject({ url: `/reports/${redacted.reference}` });
    expect(redactedPage.body).toContain("[removed by a moderator]");
    expect((await t.app.inject({ url: "/reports.atom" })).body).toContain(kept.reference);
  });
});
