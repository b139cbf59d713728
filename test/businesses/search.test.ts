import { afterAll, beforeAll, expect, it } from "vitest";
import { businessDataset } from "../../src/businesses/routes.js";
import { removeBusiness, saveBusiness } from "../../src/businesses/repository.js";
import { searchBusinessIds } from "../../src/businesses/search.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

interface ItemList {
  itemListElement: { item: { identifier: string } }[];
}

const PUBS = ["the-fox-and-hounds", "the-plough-inn", "the-wheatsheaf"];
/** The two cafés, and the book shop and garden centre whose descriptions mention a café. */
const CAFES = ["cafe-lumiere", "the-book-loft", "wrenford-garden-centre", "wrens-nest-tearoom"];

/**
 * One table of queries and the demo businesses they find (in id order), run on both databases: name, category,
 * type and description are searched, plurals and accents folded the same way on SQLite and PostgreSQL.
 */
const CASES: [query: string, expected: string[]][] = [
  ["plumber", ["penfold-plumbing-and-heating"]],
  ["plumbers", ["penfold-plumbing-and-heating"]],
  ["pub", PUBS],
  ["pubs", PUBS],
  ["PUBS", PUBS],
  ["cafe", CAFES],
  ["café", CAFES],
  ["cafés", CAFES],
  ["coffee shops", ["cafe-lumiere", "hawthorn-opticians", "wrens-nest-tearoom"]],
  ["Pâtisserie Noëlle", ["patisserie-noelle"]],
  ["patisserie noelle", ["patisserie-noelle"]],
  ["sourdough zebra", []],
  // Not FTS syntax: quotes, stars, operators and column filters are plain text.
  ['"pubs"', PUBS],
  ["pub*", PUBS],
  ["pubs OR plumber", []],
  ["document:pubs", []],
  ["NEAR(pub inn)", []],
  ["^pubs (", PUBS],
];

describeEachDb("business search (/businesses?q=, /api/v1/businesses?q=)", (dialect) => {
  let t: TestApp;
  const api = async (q: string) => {
    const res = await t.app.inject({ method: "GET", url: `/api/v1/businesses?q=${encodeURIComponent(q)}` });
    expect(res.statusCode, q).toBe(200);
    return (JSON.parse(res.body) as ItemList).itemListElement.map((e) => e.item.identifier);
  };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(CASES)("%s", async (query, expected) => {
    expect(await api(query)).toEqual(expected);
    const page = await t.app.inject({ method: "GET", url: `/businesses?q=${encodeURIComponent(query)}` });
    expect(page.statusCode).toBe(200);
    const shown = [...page.body.matchAll(/<h3>\s*<a href="\/businesses\/([^"]+)">/g)].map((m) => m[1]);
    expect([...shown].sort()).toEqual(expected);
  });

  it("finds a business by its type in words, as its card shows it", async () => {
    const page = await t.app.inject({ method: "GET", url: "/businesses?q=plumber" });
    expect(page.body).toContain("Trades · Plumber");
    expect(page.body).toContain("1 business found");
  });

  it("keeps the index current when businesses are added, changed and removed", async () => {
    const db = t.db.database.db;
    const at = new Date().toISOString();
    const record = {
      id: "zephyr-glaziers",
      name: "Zephyr Glaziers",
      schemaType: "HomeAndConstructionBusiness",
      category: "Trades",
      description: "Double glazing and sash restorations.",
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
    };
    await saveBusiness(db, record, at);
    expect(await searchBusinessIds(db, "glaziers")).toEqual(["zephyr-glaziers"]);
    expect(await searchBusinessIds(db, "home construction sash restoration")).toEqual(["zephyr-glaziers"]);
    await saveBusiness(db, { ...record, description: "Conservatories." }, at);
    expect(await searchBusinessIds(db, "sash")).not.toContain("zephyr-glaziers");
    expect(await searchBusinessIds(db, "conservatory")).toEqual(["zephyr-glaziers"]);
    await businessDataset(t.app).refresh();
    expect(await api("conservatories")).toEqual(["zephyr-glaziers"]);
    await removeBusiness(db, "zephyr-glaziers", at);
    expect(await searchBusinessIds(db, "conservatory")).not.toContain("zephyr-glaziers");
  });

  it("reads hostile queries as plain text: never an error", async () => {
    const db = t.db.database.db;
    for (const q of [
      "\u0000pubs",
      Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" "),
      "x".repeat(10_000),
      "*:^()-+{}[]~!&|<>'\\\"",
    ]) {
      await expect(searchBusinessIds(db, q)).resolves.not.toThrow();
    }
    expect(await searchBusinessIds(db, "\u0000pubs\u0001")).toHaveLength(PUBS.length);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/businesses?q=${"a".repeat(201)}` })).statusCode).toBe(
      400,
    );
    expect((await t.app.inject({ method: "GET", url: `/businesses?q=${"a".repeat(1000)}` })).statusCode).toBe(400);
  });
});
