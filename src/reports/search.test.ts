import { type RawBuilder, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { reportSubmission } from "../../test/helpers/reports.js";
import { searchPublicReports } from "./search.js";
import { submitReport } from "./submit.js";

/** The report references of a /reports page, in the order listed. */
function listed(body: string): string[] {
  const list = /<ol class="report-list">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? "";
  return [...list.matchAll(/href="\/reports\/([^"]+)"/g)].map((m) => m[1] as string);
}

/** The reports the tests search for, by a short name. */
const REPORTS = {
  lampTitle: { title: "Broken streetlight on the corner", description: "The lamp flickers all night long." },
  lampBody: {
    title: "Overflowing bins",
    description: "Bins by the Café Lumière overflow every weekend, and two streetlights nearby are out.",
  },
  place: { title: "Xylophone graffiti", description: "Paint all over the wall.", placeId: "church-lane" },
  located: {
    title: "Blocked drain",
    description: "Water pools after rain.",
    locationText: "Opposite the Quixotic Garage",
  },
  hidden: { title: "Zanzibar fly-tipping", description: "Mattresses dumped by the gate: zanzibar." },
  capitals: { title: "ÉTANG DES CYGNES OVERFLOWS", description: "WATER OVER THE FOOTPATH BY THE ÉCLUSE." },
} as const;
type Name = keyof typeof REPORTS;

/**
 * One table of queries and the reports they find, best first, run on both databases: the same words find the same
 * reports on SQLite (FTS5) and PostgreSQL (text search).
 */
const CASES: [query: string, expected: Name[]][] = [
  ["streetlight", ["lampTitle", "lampBody"]],
  ["Streetlights", ["lampTitle", "lampBody"]],
  ["cafe", ["lampBody"]],
  ["café", ["lampBody"]],
  ["CAFÉ LUMIERE", ["lampBody"]],
  ["lamp flickering", ["lampTitle"]],
  ["xylophone", ["place"]],
  ["xylophone church", ["place"]],
  ["graffiti church lane", ["place"]],
  ["quixotic garage", ["located"]],
  ["quixotic streetlight", []],
  ["zanzibar", []],
  ["étang cygne", ["capitals"]],
  ["etangs", ["capitals"]],
  ["ECLUSE", ["capitals"]],
  ["fly-tipping zanzibar", []],
  // FTS syntax is plain text: quotes, stars, carets, parentheses, column filters and operators are not operators.
  ['"streetlight"', ["lampTitle", "lampBody"]],
  ["streetlight*", ["lampTitle", "lampBody"]],
  ["^streetlight", ["lampTitle", "lampBody"]],
  ["(streetlight", ["lampTitle", "lampBody"]],
  ["streetlight)", ["lampTitle", "lampBody"]],
  ["-streetlight", ["lampTitle", "lampBody"]],
  ["streetlight AND lamp", ["lampTitle"]],
  ["streetlight NOT lamp", ["lampTitle"]],
  ["streetlight OR zanzibar", []],
  ["title:xylophone", []],
  ["NEAR(streetlight lamp)", []],
  ["{title description}: xylophone", []],
  ["streetlight:*", ["lampTitle", "lampBody"]],
  ["streetlight & !lamp", ["lampTitle"]],
  ["streetlight <-> lamp", ["lampTitle"]],
];

describeEachDb("report search (/reports?q=)", (dialect) => {
  let t: TestApp;
  const refs = {} as Record<Name, string>;
  const search = (q: string) => t.app.inject({ method: "GET", url: `/reports?q=${encodeURIComponent(q)}` });
  const nameOf = (ref: string) => (Object.keys(refs) as Name[]).find((n) => refs[n] === ref) ?? ref;

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    for (const [name, fields] of Object.entries(REPORTS) as [Name, (typeof REPORTS)[Name]][]) {
      const result = await submitReport(t.app.civic, reportSubmission({ ...fields }));
      refs[name] = result.reference;
    }
    await t.db.database.db
      .updateTable("reports")
      .set({ visibility: "hidden" })
      .where("reference", "=", refs.hidden)
      .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(CASES)("%s", async (query, expected) => {
    const res = await search(query);
    expect(res.statusCode).toBe(200);
    expect(listed(res.body).map(nameOf)).toEqual(expected);
  });

  it("ranks a word in the title above the same word in the description", async () => {
    const res = await search("streetlights");
    expect(res.body).toContain("<h1>Reports matching “streetlights”</h1>");
    expect(listed(res.body).map(nameOf)).toEqual(["lampTitle", "lampBody"]);
  });

  it("puts the report of a reference first, however it is typed, and never a hidden one", async () => {
    for (const typed of [refs.lampTitle, refs.lampTitle.toLowerCase().replace("-", " ")]) {
      const res = await search(typed);
      expect(listed(res.body), typed).toEqual([refs.lampTitle]);
    }
    const hidden = await search(refs.hidden);
    expect(listed(hidden.body)).not.toContain(refs.hidden);
  });

  it("keeps the filters and pages through the matches with the words in the links", async () => {
    let last = "";
    for (let i = 0; i < 22; i++) {
      last = (await submitReport(t.app.civic, reportSubmission({ title: `Kumquat tree ${i} overhanging` }))).reference;
    }
    await t.db.database.db
      .updateTable("reports")
      .set({ category_code: "bus_shelter" })
      .where("reference", "=", last)
      .execute();
    const first = await search("kumquats");
    expect(listed(first.body)).toHaveLength(20);
    const next = /href="([^"]*)" rel="next"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBe("/reports?q=kumquats&page=2");
    const second = await t.app.inject({ method: "GET", url: next ?? "" });
    expect(listed(second.body)).toHaveLength(2);
    expect(new Set([...listed(first.body), ...listed(second.body)]).size).toBe(22);
    const filtered = await t.app.inject({ method: "GET", url: "/reports?q=kumquat&category=bus_shelter" });
    expect(listed(filtered.body)).toEqual([last]);
  });

  it("keeps a search box on /reports, and a gazetteer name in it lists the reports near that place", async () => {
    const page = await t.app.inject({ method: "GET", url: "/reports" });
    expect(page.body).toMatch(
      /<label for="filter-near">Street, place or words<\/label>\s*<input id="filter-near" name="q"/,
    );
    const near = await search("Church Lane");
    expect(near.body).toContain("<h1>Reports near Church Lane</h1>");
    expect((await t.app.inject({ method: "GET", url: "/reports?near=Church+Lane" })).body).toContain(
      "<h1>Reports near Church Lane</h1>",
    );
  });

  it("reads hostile queries as plain text, bounded: never an error", async () => {
    const db = t.db.database.db;
    const hostile = [
      "\u0000streetlight\u0000",
      Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("streetlight"),
      Array.from({ length: 1000 }, (_, i) => `word${i}`).join(" "),
      "streetlight ".repeat(1000),
      "x".repeat(10_000),
      '"'.repeat(500),
      "*:^()-+{}[]~!&|<>'\\",
      "\uD800 streetlight \uDFFF",
    ];
    for (const q of hostile) {
      const started = performance.now();
      await expect(searchPublicReports(db, q, {}, { offset: 0, limit: 20 })).resolves.not.toThrow();
      expect(performance.now() - started).toBeLessThan(2000);
    }
    const lots = await searchPublicReports(db, "streetlight ".repeat(1000), {}, { offset: 0, limit: 20 });
    expect(lots?.items.map((r) => nameOf(r.reference))).toEqual(["lampTitle", "lampBody"]);
    for (const q of ["x".repeat(10_000), Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" "), "*:^()"]) {
      const res = await t.app.inject({ method: "GET", url: `/reports?q=${encodeURIComponent(q)}` });
      expect(res.statusCode, q.slice(0, 20)).toBe(200);
    }
    const nul = await t.app.inject({ method: "GET", url: "/reports?q=%00" });
    expect(nul.statusCode).toBeLessThan(500);
  });

  it("lists the newest 1,000 when more match, newest first, and says so", async () => {
    const db = t.db.database.db;
    const columns = sql.raw(
      "reference, category_code, title, description, latitude, longitude, attributes, status, visibility, share_contact, source, created_at, updated_at",
    );
    const copy = (i: RawBuilder<unknown>, numbers: RawBuilder<unknown>) =>
      sql`insert into reports (${columns})
        select 'WOMB-' || ${i}, category_code, 'Wombat crossing ' || ${i}, description, latitude, longitude, attributes,
          status, visibility, share_contact, source, created_at, updated_at
        from reports, ${numbers} where reference = ${refs.lampTitle}`;
    if (dialect === "postgres") {
      await copy(sql`i`, sql`generate_series(1, 1005) as i`).execute(db);
    } else {
      await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < 1005) ${copy(sql`s.i`, sql`s`)}`.execute(
        db,
      );
    }
    const res = await search("wombats");
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("more than 1,000 match, so the newest 1,000 are listed, newest first");
    expect(res.body).toContain("Showing 1 to 20 of 1000 reports.");
    const ids = await db
      .selectFrom("reports")
      .select(["reference", "id"])
      .where("reference", "like", "WOMB-%")
      .orderBy("id", "desc")
      .limit(20)
      .execute();
    expect(listed(res.body)).toEqual(ids.map((r) => r.reference));
  });

  it("keeps the index current: an edited title is found by its new words", async () => {
    const db = t.db.database.db;
    await db.updateTable("reports").set({ title: "Wobbly bollard" }).where("reference", "=", refs.located).execute();
    expect(listed((await search("bollard")).body)).toEqual([refs.located]);
    expect(listed((await search("blocked drain")).body)).not.toContain(refs.located);
  });
});
