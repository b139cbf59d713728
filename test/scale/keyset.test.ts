import { afterAll, beforeAll, expect, it } from "vitest";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";

/** /reports shows 20 reports a page (PAGE_SIZE in src/reports/routes.tsx). */
const PER_PAGE = 20;

describeEachDb("/reports pages by keyset", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    // Enough reports beside the demo's for at least four pages, so that pages beyond the second exist and the
    // "newer" links of pages 3 and on carry an `after=` cursor. Several share a timestamp (one clock reading), so
    // the keyset's tie-break is walked too.
    for (let i = 0; i < 2 * PER_PAGE + 5; i++) {
      await submitReport(t.app.civic, reportSubmission({ title: `Keyset report ${i}` }));
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const refs = (html: string) => [...html.matchAll(/<a href="\/reports\/([0-9A-Z]{4}-[0-9A-Z]{4})"/g)].map((m) => m[1]);
  const link = (html: string, rel: "next" | "prev") =>
    new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html)?.[1]?.replace(/&amp;/g, "&");
  const total = (html: string) => Number(/Showing \d+ to \d+ of (\d+) report/.exec(html)?.[1]);
  const get = async (url: string) => {
    const res = await t.app.inject(url);
    expect(res.statusCode, url).toBe(200);
    return res.body;
  };

  it("older and newer links carry a cursor and show the same reports as numbered pages, without JavaScript", async () => {
    const first = await get("/reports");
    const count = total(first);
    const pages = Math.ceil(count / PER_PAGE);
    expect(pages).toBeGreaterThanOrEqual(4);
    // The numbered pages (by offset), for comparison.
    const byOffset: (string | undefined)[][] = [refs(first)];
    for (let n = 2; n <= pages; n++) byOffset.push(refs(await get(`/reports?page=${n}`)));
    const all = byOffset.flat();
    expect(all).toHaveLength(count);
    expect(new Set(all).size).toBe(count);

    // Older, by `before=`, to the last page: the same reports as the numbered pages, page by page.
    const forward: string[] = [first];
    for (let n = 2; n <= pages; n++) {
      const next = link(forward[n - 2] ?? "", "next");
      expect(next).toMatch(new RegExp(`^/reports\\?page=${n}&before=[0-9A-Z]{4}-[0-9A-Z]{4}$`));
      const page = await get(next ?? "");
      expect(refs(page), `page ${n} by before=`).toEqual(byOffset[n - 1]);
      expect(page).toContain(`Showing ${(n - 1) * PER_PAGE + 1} to`);
      forward.push(page);
    }
    expect(link(forward[pages - 1] ?? "", "next")).toBeUndefined();

    // Newer, by `after=`, from the last page back to the first: every page again, none missed or repeated.
    let page = forward[pages - 1] ?? "";
    const backward: (string | undefined)[][] = [refs(page)];
    for (let n = pages - 1; n >= 1; n--) {
      const prev = link(page, "prev");
      if (n === 1) expect(prev).toBe("/reports");
      else expect(prev).toMatch(new RegExp(`^/reports\\?page=${n}&after=[0-9A-Z]{4}-[0-9A-Z]{4}$`));
      page = await get(prev ?? "");
      expect(refs(page), `page ${n} by after=`).toEqual(byOffset[n - 1]);
      backward.unshift(refs(page));
    }
    expect(backward.flat()).toEqual(all);
    expect(link(page, "prev")).toBeUndefined();

    expect((await t.app.inject("/reports?page=2&before=ZZZZ-ZZZZ")).statusCode).toBe(404);
    expect((await t.app.inject("/reports?page=2&after=ZZZZ-ZZZZ")).statusCode).toBe(404);
  });
});
