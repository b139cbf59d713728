import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { runCli } from "../cli.js";
import { parseCsv } from "./csv.js";
import { formatProblem, parseImport, parseOpeningHoursText } from "./import.js";
import { until } from "../../test/helpers/wait.js";

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

const CSV_HEADER =
  "id,name,schemaType,category,description,streetAddress,addressLocality,postalCode,addressCountry,latitude,longitude,telephone,email,url,sameAs,openingHours";

describe("import file parsing", () => {
  it("reads RFC 4180 CSV: quotes, doubled quotes, line breaks inside quotes, CRLF, BOM", () => {
    const rows = parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n\r\n"two\nlines",z\n');
    expect(rows).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", 'say "hi"'] },
      { line: 4, fields: ["two\nlines", "z"] },
    ]);
    expect(() => parseCsv('a\n"open')).toThrow(/line 2/);
  });

  it("reads schema.org openingHours text", () => {
    expect(parseOpeningHoursText("Mo-Fr 09:00-17:00; Sa,Su 10:00-12:30")).toEqual({
      value: [
        { dayOfWeek: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], opens: "09:00", closes: "17:00" },
        { dayOfWeek: ["Saturday", "Sunday"], opens: "10:00", closes: "12:30" },
      ],
    });
    expect(parseOpeningHoursText("Mon 9-5")).toHaveProperty("error");
  });

  it("reports every problem with its record, line and field", () => {
    const csv = [
      CSV_HEADER,
      "good-shop,Good Shop,Store,Shops,,1 High St,Village,YR7 2QP,GB,50.9,-2.0,01632 960999,a@example.org,https://example.org,,Mo-Sa 09:00-17:00",
      '"Bad Id",,NotAType,Shops,"multi\nline",,,,,95,-2.0,,not-an-email,ftp://x,,Xx 09:00-17:00',
      "good-shop,Again,Store,Shops,,,,,,,,,,,,",
    ].join("\n");
    const parsed = parseImport(csv, "csv");
    expect(parsed.total).toBe(3);
    expect(parsed.records.map((r) => r.id)).toEqual(["good-shop"]);
    const lines = parsed.problems.map(formatProblem);
    expect(lines).toContain(
      'record 2 (line 3), field "id": must be lower-case letters, digits and single hyphens (a slug)',
    );
    expect(lines).toContain('record 2 (line 3), field "name": is required');
    expect(lines).toContain('record 2 (line 3), field "schemaType": "NotAType" is not a schema.org type');
    expect(lines).toContain('record 2 (line 3), field "latitude": must be a number between -90 and 90');
    expect(lines).toContain('record 2 (line 3), field "email": is not an email address');
    expect(lines).toContain('record 2 (line 3), field "url": must be an http(s) URL');
    expect(lines.some((l) => l.startsWith('record 2 (line 3), field "openingHours"'))).toBe(true);
    expect(lines).toContain('record 3 (line 5), field "identifier": "good-shop" is already used by record 1');

    const json = parseImport(
      JSON.stringify([{ identifier: "x", name: "X", "@type": "Book", category: "Shops" }]),
      "json",
    );
    expect(json.problems.map(formatProblem)).toEqual([
      'record 1, field "@type": Book is not LocalBusiness or one of its subtypes',
    ]);
    expect(parseImport("{not json", "json").problems[0]?.message).toMatch(/not JSON/);
  });
});

describeEachDb("civic businesses import/export", (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;
  const file = (name: string) => join(t.db.dataDir, name);
  const changeCount = async () =>
    Number(
      (
        await t.db.database.db
          .selectFrom("business_changes")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const servedEtag = async () => String((await t.app.inject("/data/businesses-canonical.json")).headers.etag);
  /** The served ETag once it is no longer `not` (the dataset has looked at the change log again). */
  async function waitForEtag(not: string): Promise<string> {
    let etag = not;
    await until(async () => (etag = await servedEtag()) !== not, 100);
    return etag;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    env = {
      DATA_DIR: t.db.dataDir,
      LOG_LEVEL: "silent",
      BASE_URL: "http://civic.test",
      ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  it("exports the exact bytes the server serves, and re-importing them changes nothing", async () => {
    const o = io();
    expect(await runCli(["businesses", "export", "--output", file("export.json")], env, o.io)).toBe(0);
    const bytes = readFileSync(file("export.json"));
    const served = await t.app.inject("/data/businesses-canonical.json");
    expect(bytes.equals(served.rawPayload)).toBe(true);
    expect(`"${createHash("sha256").update(bytes).digest("hex")}"`).toBe(served.headers.etag);
    expect(o.out.join("\n")).toMatch(/Wrote 57 businesses/);

    const before = await changeCount();
    const again = io();
    expect(await runCli(["businesses", "import", file("export.json")], env, again.io)).toBe(0);
    expect(again.out.at(-1)).toMatch(/0 added, 0 updated, 0 removed, 57 unchanged/);
    expect(await changeCount()).toBe(before);
  });

  it("applies adds and updates, removes with --prune, and running servers pick the change up", async () => {
    const doc = JSON.parse(readFileSync(file("export.json"), "utf8")) as {
      itemListElement: { item: Record<string, unknown> }[];
    };
    const items = doc.itemListElement;
    const first = items[0]!.item;
    first.name = `${String(first.name)} (new owners)`;
    items.push({ item: { ...items[1]!.item, identifier: "brand-new-shop", name: "Brand New Shop" } });
    items.splice(2, 1);
    writeFileSync(file("changed.json"), JSON.stringify(doc));
    const etagBefore = await servedEtag();

    const o = io();
    expect(await runCli(["businesses", "import", file("changed.json")], env, o.io)).toBe(0);
    expect(o.out.at(-1)).toMatch(/1 added, 1 updated, 0 removed, 55 unchanged/);
    const afterImport = await waitForEtag(etagBefore);
    expect(afterImport).not.toBe(etagBefore);
    expect((await t.app.inject("/api/v1/businesses/brand-new-shop")).statusCode).toBe(200);

    const pruned = io();
    expect(await runCli(["businesses", "import", file("changed.json"), "--prune"], env, pruned.io)).toBe(0);
    expect(pruned.out.at(-1)).toMatch(/0 added, 0 updated, 1 removed, 57 unchanged/);
    await waitForEtag(afterImport);
    expect((await t.app.inject("/api/v1/businesses?q=")).statusCode).toBe(200);
    const removedId = JSON.parse(readFileSync(file("export.json"), "utf8")).itemListElement[2].item.identifier;
    expect((await t.app.inject(`/api/v1/businesses/${removedId}`)).statusCode).toBe(410);
  });

  it("applies nothing from a file with any invalid record, and says where every problem is", async () => {
    const doc = JSON.parse(readFileSync(file("changed.json"), "utf8")) as {
      itemListElement: { item: Record<string, unknown> }[];
    };
    doc.itemListElement[0]!.item.name = "A change that must not be applied";
    doc.itemListElement[3]!.item.geo = { "@type": "GeoCoordinates", latitude: "north", longitude: -2 };
    delete doc.itemListElement[5]!.item.category;
    writeFileSync(file("invalid.json"), JSON.stringify(doc));
    const changes = await changeCount();
    const etag = await servedEtag();

    const o = io();
    expect(await runCli(["businesses", "import", file("invalid.json"), "--prune"], env, o.io)).toBe(1);
    expect(o.err).toContain('record 4, field "geo.latitude": must be a number between -90 and 90');
    expect(o.err).toContain('record 6, field "category": is required');
    expect(o.err.at(-1)).toMatch(/2 problems in 2 of 57 records\. Nothing was imported\./);
    expect(await changeCount()).toBe(changes);
    const exported = io();
    await runCli(["businesses", "export", "--output", file("after-invalid.json")], env, exported.io);
    expect(
      `"${createHash("sha256")
        .update(readFileSync(file("after-invalid.json")))
        .digest("hex")}"`,
    ).toBe(etag);
  });

  it("imports CSV, with progress on a large file", async () => {
    const rows = [CSV_HEADER];
    for (let i = 0; i < 2500; i++) {
      rows.push(
        `csv-shop-${i},"Shop ${i}, the ""best""",Store,Shops,,${i} Long Road,Village,YR7 2QP,GB,50.9,-2.0,,,,,Mo-Fr 09:00-17:00`,
      );
    }
    writeFileSync(file("big.csv"), rows.join("\r\n"));
    const o = io();
    expect(await runCli(["businesses", "import", file("big.csv")], env, o.io)).toBe(0);
    expect(o.out).toContain("Checked 1000 of 2500 records…");
    expect(o.out).toContain("Applied 2000 of 2500 records…");
    expect(o.out.at(-1)).toMatch(/CSV, 2500 records\): 2500 added, 0 updated, 0 removed, 0 unchanged/);
    // Until the served dataset has every imported record (it rebuilds once it has looked at the change log again).
    let count = 0;
    await until(async () => {
      count = JSON.parse((await t.app.inject("/api/v1/businesses?category=shops&q=long%20road")).body).numberOfItems;
      return count >= 2500;
    }, 100);
    expect(count).toBe(2500);
    const one = JSON.parse((await t.app.inject("/api/v1/businesses/csv-shop-7")).body);
    expect(one.name).toBe('Shop 7, the "best"');
    expect(one.openingHoursSpecification[0].dayOfWeek).toHaveLength(5);

    const bad = io();
    writeFileSync(file("bad.csv"), `${CSV_HEADER}\nx,X,Store,Shops,,,,,,50.9,,,,,,\n`);
    expect(await runCli(["businesses", "import", file("bad.csv")], env, bad.io)).toBe(1);
    expect(bad.err).toContain('record 1 (line 2), field "longitude": must be a number between -180 and 180');
  });
});
