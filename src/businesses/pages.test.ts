import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { expand, ownTerms, schemaOrgProblems } from "../../test/businesses/schema-org.js";
import { businesses as demoBusinesses } from "../demo/village.js";
import { jsonForScript } from "./jsonld.js";
import { hoursByDay } from "./pages.js";
import { applyBusinesses, removeBusiness } from "./repository.js";
import { until } from "../../test/helpers/wait.js";

const resultLinks = (html: string) =>
  [...html.matchAll(/<h3><a href="\/businesses\/([a-z0-9-]+)">/g)].map((m) => m[1] as string);

it("escapes < in embedded JSON so a value can never close the script element", () => {
  const text = jsonForScript({ name: "</script><script>alert(1)</script>" });
  expect(text).not.toContain("<");
  expect(JSON.parse(text)).toEqual({ name: "</script><script>alert(1)</script>" });
});

it("lays opening hours out by day", () => {
  const days = hoursByDay([
    { dayOfWeek: ["Monday", "Friday"], opens: "14:00", closes: "17:00" },
    { dayOfWeek: ["Monday"], opens: "09:00", closes: "12:00" },
  ]);
  expect(days[0]).toEqual({ day: "Monday", times: "09:00 to 12:00, 14:00 to 17:00" });
  expect(days[1]).toEqual({ day: "Tuesday", times: null });
  expect(days[4]).toEqual({ day: "Friday", times: "14:00 to 17:00" });
});

describeEachDb("business directory pages", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists every business with a link to its page, and filters like the API", async () => {
    const all = await t.app.inject("/businesses");
    expect(all.statusCode).toBe(200);
    // 50 a page, by name.
    const second = await t.app.inject("/businesses?page=2");
    expect(resultLinks(all.body)).toHaveLength(50);
    expect(all.body).toContain('href="/businesses?page=2" rel="next"');
    expect([...resultLinks(all.body), ...resultLinks(second.body)].sort()).toEqual(
      demoBusinesses.map((b) => b.id).sort(),
    );
    expect(all.body).toContain('<label for="q">Search</label>');
    expect(all.body).toContain('<label for="category">Category</label>');
    expect(all.body).toContain('<label for="schemaType">Type of business</label>');
    expect(all.body).toContain('<option value="FoodEstablishment">Food establishment</option>');

    const food = await t.app.inject("/businesses?schemaType=FoodEstablishment&q=PATISSERIE");
    expect(resultLinks(food.body)).toEqual(["patisserie-noelle"]);
    expect(food.body).toContain('<option value="FoodEstablishment" selected>');
    const shops = await t.app.inject("/businesses?category=shops");
    expect(resultLinks(shops.body).length).toBe(demoBusinesses.filter((b) => b.category === "Shops").length);
    const none = await t.app.inject("/businesses?q=zzzz");
    expect(none.body).toContain("No business matches");
  });

  it("explains an over-long search instead of failing", async () => {
    const res = await t.app.inject(`/businesses?q=${"a".repeat(201)}`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain("error-summary");
    expect(res.body).toContain("200 characters or fewer");
  });

  it("shows a business with its details, opening hours, map and embedded LocalBusiness JSON-LD", async () => {
    const res = await t.app.inject("/businesses/the-old-bakery");
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain("<h1>The Old Bakery</h1>");
    expect(html).toContain("3 High Street");
    expect(html).toContain('href="tel:01632960101"');
    expect(html).toMatch(/<th scope="row">Tuesday<\/th><td>07:00 to 15:00<\/td>/);
    expect(html).toMatch(/<th scope="row">Monday<\/th><td>Closed<\/td>/);
    expect(html).toContain('id="business-map"');
    expect(html).toMatch(/<script type="module" src="\/assets\/business-map-[A-Z0-9]+\.js">/);
    const block = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html)?.[1];
    expect(block).toBeDefined();
    const doc = JSON.parse(block as string) as Record<string, unknown>;
    expect(doc).toEqual(JSON.parse((await t.app.inject("/api/v1/businesses/the-old-bakery")).body));
    const own = await ownTerms(JSON.parse((await t.app.inject("/api/v1/vocabulary")).body));
    expect(schemaOrgProblems(await expand(doc), own)).toEqual([]);
  });

  it("escapes markup in business data on the page and in its JSON-LD", async () => {
    const at = new Date().toISOString();
    await applyBusinesses(
      t.db.database.db,
      [
        {
          id: "script-test",
          name: "</script><script>alert(1)</script>",
          schemaType: "Store",
          category: "Shops",
          description: "<b>bold</b>",
          address: {
            streetAddress: null,
            addressLocality: null,
            addressRegion: null,
            postalCode: null,
            addressCountry: null,
          },
          geo: null,
          telephone: null,
          email: null,
          url: null,
          image: null,
          sameAs: [],
          openingHours: [],
        },
      ],
      { prune: false, at },
    );
    // Until the served dataset has the new business (it rebuilds once it has looked at the change log again).
    let res = await t.app.inject("/businesses/script-test");
    await until(async () => (res = await t.app.inject("/businesses/script-test")).statusCode === 200, 100);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain("<script>alert(1)");
    expect(res.body).not.toContain("<b>bold</b>");
    expect(res.body).toContain("\\u003c/script>");
    expect(res.body).toContain("Opening hours are not known");
    expect(res.body).not.toContain('id="business-map"');

    await removeBusiness(t.db.database.db, "script-test", new Date().toISOString());
    let gone = await t.app.inject("/businesses/script-test");
    await until(async () => (gone = await t.app.inject("/businesses/script-test")).statusCode === 410, 100);
    expect(gone.statusCode).toBe(410);
    expect(gone.headers["content-type"]).toMatch(/text\/html/);
    expect((await t.app.inject("/businesses/never-existed")).statusCode).toBe(404);
  });
});
