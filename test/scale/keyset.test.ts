import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

describeEachDb("/reports pages by keyset", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  const refs = (html: string) => [...html.matchAll(/<a href="\/reports\/([0-9A-Z]{4}-[0-9A-Z]{4})"/g)].map((m) => m[1]);
  const link = (html: string, rel: "next" | "prev") =>
    new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, "&");

  it("older and newer links carry a cursor and show the same reports as numbered pages, without JavaScript", async () => {
    const first = (await t.app.inject("/reports")).body;
    const next = link(first, "next");
    expect(next).toMatch(/^\/reports\?page=2&before=[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const second = await t.app.inject(next ?? "");
    expect(second.statusCode).toBe(200);
    const byOffset = (await t.app.inject("/reports?page=2")).body;
    expect(refs(second.body)).toEqual(refs(byOffset));
    expect(second.body).toContain("Showing 21 to");
    const prev = link(second.body, "prev");
    expect(prev).toBe("/reports");
    // From a deeper page, "newer" goes back one page by keyset.
    const third = link(second.body, "next");
    if (third) {
      const thirdPage = (await t.app.inject(third)).body;
      const back = link(thirdPage, "prev");
      expect(back).toMatch(/page=2&after=/);
      expect(refs((await t.app.inject(back ?? "")).body)).toEqual(refs(second.body));
    }
    expect((await t.app.inject("/reports?page=2&before=ZZZZ-ZZZZ")).statusCode).toBe(404);
  });
});
