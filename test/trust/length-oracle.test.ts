import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** Text a page may reflect, recognisable in its body. */
const MARK = "Refl3ctedMark";
/** Query names tried on a route whose query schema names none (or on code that does not list them). */
const USUAL = ["q", "next", "reference", "search", "email", "name", "status", "category", "page", "type"];

/** A value for each path parameter: enough to reach the route (a 404 page is a page too). */
function fill(url: string): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_, name: string) => (name === "token" ? "x".repeat(43) : "1"))
    .replace("*", "x");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Issue 33 #6: a signed-in page that reflects request text (a search, `next=`, a reference) must not also carry the
 * viewer's personal data in the same compressed body, or the compressed length tells whether a guess at it was
 * right (compression finds the repeat: BREACH). Measured on the pages the issue names, with brotli and gzip; and on
 * every page of every GET route, whatever it reflects, the viewer's address and name are absent.
 */
describeEachDb("no compression length oracle on signed-in pages", (dialect) => {
  let t: TestApp;
  let resident: SignedIn;
  let admin: SignedIn;
  /** A resident who chose no name: the page chrome used to show the address instead. */
  let unnamed: SignedIn;
  const NAME = { resident: "Oriel Quibbleworth", admin: "Perpetua Zanzibarre" };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    resident = await signInAs(t.app, "oracle.victim@example.org", "resident");
    admin = await signInAs(t.app, "oracle.xkq7w@example.org", "admin");
    unnamed = await signInAs(t.app, "unnamed.victim@example.org", "resident");
    const db = t.app.civic.database.db;
    await db.updateTable("accounts").set({ name: NAME.resident }).where("id", "=", resident.accountId).execute();
    await db.updateTable("accounts").set({ name: NAME.admin }).where("id", "=", admin.accountId).execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Lengths on the wire of `url` for the viewer, asked with `encoding`, over several requests (the form token
   * differs each time). A page that refuses the text (400: not a reference) still shows it back in its form.
   * Public pages are compressed; the staff console's answers to a search are not (core/staff/console.ts).
   */
  async function lengths(who: SignedIn, url: string, encoding: "br" | "gzip"): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ url, headers: { cookie: who.cookie, "accept-encoding": encoding } });
      expect([200, 400], url).toContain(res.statusCode);
      if (!url.startsWith("/admin/")) expect(res.headers["content-encoding"], url).toBe(encoding);
      out.push(res.rawPayload.length);
    }
    return out;
  }

  it("answers a right guess at the viewer's address or name no shorter than a wrong one", async () => {
    const gaps: string[] = [];
    const publicPages = [
      ["/reports", "q"],
      ["/businesses", "q"],
      ["/status", "reference"],
      ["/sign-in", "next"],
    ] as const;
    // Wrong guesses: the right one with two neighbouring characters of `part` swapped, so the same characters, only
    // not in the order the page would have them (another letter alone changes the entropy coding by a byte or two).
    // The right guess is compared with the shortest of three.
    const wrongs = (right: string, part: string) =>
      [0, 1, 2]
        .map((i) => `${part.slice(0, i)}${part[i + 1]}${part[i]}${part.slice(i + 2)}`)
        .filter((swapped) => swapped !== part)
        .map((swapped) => right.replace(part, swapped));
    for (const [who, right, part, pages] of [
      [unnamed, unnamed.email, "victim", publicPages],
      [resident, NAME.resident, "Quibble", publicPages],
      // A staff search: the inbox listed every staff member, the viewer too, with name and address.
      [admin, admin.email, "xkq7w", [["/admin/reports", "q"]]],
      [admin, NAME.admin, "barre", [["/admin/reports", "q"]]],
    ] as const) {
      for (const [page, name] of pages) {
        for (const encoding of ["br", "gzip"] as const) {
          const url = (guess: string) => `${page}?${name}=${encodeURIComponent(name === "next" ? `/${guess}` : guess)}`;
          const withRight = median(await lengths(who, url(right), encoding));
          let withWrong = Infinity;
          for (const wrong of wrongs(right, part)) {
            withWrong = Math.min(withWrong, median(await lengths(who, url(wrong), encoding)));
          }
          // A right guess was 2-5 bytes shorter than every wrong one.
          if (withWrong - withRight > 1) gaps.push(`${page}?${name} (${encoding}): ${withRight} < ${withWrong}`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it("shows no personal data of the viewer on any page that reflects request text", async () => {
    const routes = t.app.civic.routes as { method: string; url: string; query?: string[] }[];
    const pages = routes.filter(
      (r) =>
        r.method === "GET" &&
        !r.url.startsWith("/api/") &&
        !r.url.startsWith("/assets/") &&
        !r.url.startsWith("/photos/") &&
        !r.url.endsWith(".atom"),
    );
    const reflecting = new Set<string>();
    const found: string[] = [];
    for (const [who, signedIn, name] of [
      ["resident", resident, NAME.resident],
      ["unnamed", unnamed, unnamed.email],
      ["admin", admin, NAME.admin],
    ] as const) {
      for (const r of pages) {
        const names = [...new Set([...(r.query ?? []), ...USUAL])];
        const pair = (n: string) => `${n}=${n === "next" ? `%2F${MARK}` : MARK}`;
        for (const url of [
          `${fill(r.url)}?${names.map(pair).join("&")}`,
          ...names.map((n) => `${fill(r.url)}?${pair(n)}`),
        ]) {
          const res = await t.app.inject({ url, headers: { cookie: signedIn.cookie, "accept-encoding": "br" } });
          const compressed = res.headers["content-encoding"] === "br";
          const text = compressed ? brotliDecompressSync(res.rawPayload).toString("utf8") : res.body;
          if (!String(res.headers["content-type"] ?? "").startsWith("text/html") || !text.includes(MARK)) continue;
          reflecting.add(r.url);
          const body = text.toLowerCase();
          // Uncompressed, the length is the text's own: nothing in it can be guessed through it.
          if (compressed && (body.includes(signedIn.email.toLowerCase()) || body.includes(name.toLowerCase()))) {
            found.push(`${who}: ${url.split("?")[0]} (${res.statusCode})`);
          }
        }
      }
    }
    // The pages the issue names are among those that reflect what they are asked.
    for (const url of ["/reports", "/businesses", "/status", "/sign-in", "/admin/reports", "/admin/log"]) {
      expect([...reflecting]).toContain(url);
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it("sends the staff console's answers to a search uncompressed, and its other pages compressed", async () => {
    const headers = { cookie: admin.cookie, "accept-encoding": "br, gzip" };
    for (const url of ["/admin/reports?q=pothole", "/admin/log?action=x"]) {
      const res = await t.app.inject({ url, headers });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-encoding"], url).toBeUndefined();
    }
    const plain = await t.app.inject({ url: "/admin/reports", headers });
    expect(plain.headers["content-encoding"]).toBe("br");
  });
});
