import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";

describeEachDb("home page: the place box and the latest reports", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: "GET", url });

  /** The newest public reports, as the home page should list them. */
  async function newest(n: number) {
    return t.db.database.db
      .selectFrom("reports")
      .select(["reference", "title"])
      .where("visibility", "=", "public")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(n)
      .execute();
  }

  it("has a labelled street, place or words box, with the gazetteer's names, in a GET form to /reports", async () => {
    const res = await get("/");
    expect(res.statusCode).toBe(200);
    const form = /<form method="get" action="\/reports" class="place-search">([\s\S]*?)<\/form>/.exec(res.body)?.[1];
    expect(form).toBeDefined();
    expect(form).toContain('<label for="place-search">Street, place or words</label>');
    expect(form).toMatch(/<input id="place-search" name="q" type="search"[^>]* list="place-search-places"/);
    expect(form).toContain('<option value="Church Lane">');
    expect(form).toContain(`<option value="St Mary's Church">`);
    expect(form).toContain('<button type="submit">Find reports</button>');
    // What the form sends without JavaScript: a gazetteer name lists the reports around the place, nearest first;
    // other words are searched for; the links of earlier pages (?near=) still work.
    const near = await get("/reports?q=St+Mary%27s+Church");
    expect(near.statusCode).toBe(200);
    expect(near.body).toContain("<h1>Reports near St Mary's Church</h1>");
    expect((await get("/reports?near=St+Mary%27s+Church")).body).toContain("<h1>Reports near St Mary's Church</h1>");
    const words = await get("/reports?q=pothole");
    expect(words.body).toContain("<h1>Reports matching “pothole”</h1>");
  });

  it("lists the five newest public reports with their status, category and place, linked", async () => {
    const res = await get("/");
    const section = /<section aria-labelledby="latest-heading">([\s\S]*?)<\/section>/.exec(res.body)?.[1] ?? "";
    expect(section).toContain("Latest reports");
    const linked = [...section.matchAll(/<a href="\/reports\/([^"]+)">/g)].map((m) => m[1]);
    expect(linked).toEqual((await newest(5)).map((r) => r.reference));
    expect(section).toMatch(/class="tag status-[a-z_]+"/);
    expect(section).toContain("<time");
  });

  it("never shows a hidden report", async () => {
    const db = t.db.database.db;
    const [first] = await newest(1);
    await db
      .updateTable("reports")
      .set({ visibility: "hidden" })
      .where("reference", "=", first?.reference ?? "")
      .execute();
    try {
      const res = await get("/");
      expect(res.body).not.toContain(`/reports/${first?.reference}"`);
      const section = /<section aria-labelledby="latest-heading">([\s\S]*?)<\/section>/.exec(res.body)?.[1] ?? "";
      expect([...section.matchAll(/<a href="\/reports\/([^"]+)">/g)].map((m) => m[1])).toEqual(
        (await newest(5)).map((r) => r.reference),
      );
    } finally {
      await db
        .updateTable("reports")
        .set({ visibility: "public" })
        .where("reference", "=", first?.reference ?? "")
        .execute();
    }
  });

  it("promises only what exists: following a report, not adding to it; the 404 page finds reports by place or words", async () => {
    const home = await get("/");
    expect(home.body).not.toContain("add to them");
    expect(home.body).toContain("get the updates on one by email");
    const missing = await get("/no-such-page");
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain("Search and browse");
    expect(missing.body).toMatch(/<form method="get" action="\/reports" class="place-search">[\s\S]*name="q"/);
    expect(missing.body).toContain('<label for="place-search">Street, place or words</label>');
  });
});
