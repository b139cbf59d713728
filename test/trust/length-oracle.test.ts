import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { brotliTextOptions } from "../../src/core/http/compression.js";
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
  /** Viewers whose data is none of the guesses: the same guesses asked by them are the control. */
  let bystander: SignedIn;
  let otherAdmin: SignedIn;
  const NAME = { resident: "Oriel Quibbleworth", admin: "Perpetua Zanzibarre" };

  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    resident = await signInAs(t.app, "oracle.victim@example.org", "resident");
    admin = await signInAs(t.app, "oracle.xkq7w@example.org", "admin");
    unnamed = await signInAs(t.app, "unnamed.victim@example.org", "resident");
    bystander = await signInAs(t.app, "bystander.control@example.org", "resident");
    otherAdmin = await signInAs(t.app, "control.admin@example.org", "admin");
    const db = t.app.civic.database.db;
    await db.updateTable("accounts").set({ name: NAME.resident }).where("id", "=", resident.accountId).execute();
    await db.updateTable("accounts").set({ name: NAME.admin }).where("id", "=", admin.accountId).execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * The length of `url`'s answer for the viewer, compressed with `encoding`. The answer is asked as a browser asks
   * it (compressed on the wire, checked), decoded, and its per-answer random values (form tokens, the drafts' owner
   * key) replaced by one fixed text; then it is compressed again with the same encoding. So the length depends on
   * the page's text alone, steady from run to run: two viewers whose pages differ only in those values get exactly
   * the same lengths, and only what the page holds of the viewer makes theirs differ. A page that refuses the text
   * (400: not a reference) still shows it back in its form. The staff console's answers to a search are sent
   * uncompressed (core/staff/console.ts): their length on the wire is measured as it is.
   */
  async function length(who: SignedIn, url: string, encoding: "br" | "gzip"): Promise<number> {
    const res = await t.app.inject({ url, headers: { cookie: who.cookie, "accept-encoding": encoding } });
    expect([200, 400], url).toContain(res.statusCode);
    if (url.startsWith("/admin/")) {
      // Staff pages list colleagues' names and addresses: a search is answered uncompressed, its length that of the
      // text itself, the same for a right and a wrong guess of the same characters.
      expect(res.headers["content-encoding"], url).toBeUndefined();
      return res.rawPayload.length;
    }
    expect(res.headers["content-encoding"], url).toBe(encoding);
    const text = (encoding === "br" ? brotliDecompressSync(res.rawPayload) : gunzipSync(res.rawPayload)).toString();
    const steady = text.replace(/[A-Za-z0-9_.-]{20,}/g, "RANDOM");
    const bytes = Buffer.from(steady, "utf8");
    return encoding === "br"
      ? brotliCompressSync(bytes, brotliTextOptions(bytes.length, 5)).length
      : gzipSync(bytes, { level: 6 }).length;
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
    // The right guess is compared with the shortest of three. The same guesses asked by a viewer whose data they are
    // not are the control: how much shorter the right string is than the wrong ones for reasons of its own (the
    // order of its characters, the random form token) is the same for both viewers, and only a page that holds the
    // viewer's data makes it shorter for them than for the control.
    const wrongs = (right: string, part: string) =>
      [0, 1, 2]
        .map((i) => `${part.slice(0, i)}${part[i + 1]}${part[i]}${part.slice(i + 2)}`)
        .filter((swapped) => swapped !== part)
        .map((swapped) => right.replace(part, swapped));
    for (const [who, control, right, part, pages] of [
      [unnamed, bystander, unnamed.email, "victim", publicPages],
      [resident, bystander, NAME.resident, "Quibble", publicPages],
      // A staff search: the inbox listed every staff member, the viewer too, with name and address.
      [admin, otherAdmin, admin.email, "xkq7w", [["/admin/reports", "q"]]],
      [admin, otherAdmin, NAME.admin, "barre", [["/admin/reports", "q"]]],
    ] as const) {
      for (const [page, name] of pages) {
        for (const encoding of ["br", "gzip"] as const) {
          const url = (guess: string) => `${page}?${name}=${encodeURIComponent(name === "next" ? `/${guess}` : guess)}`;
          /** How many bytes shorter the right guess is than the shortest wrong one, for this viewer. */
          const advantage = async (viewer: SignedIn) => {
            const withRight = await length(viewer, url(right), encoding);
            let withWrong = Infinity;
            for (const wrong of wrongs(right, part)) {
              withWrong = Math.min(withWrong, await length(viewer, url(wrong), encoding));
            }
            return withWrong - withRight;
          };
          const theirs = await advantage(who);
          const controls = await advantage(control);
          // A right guess was 2-5 bytes shorter than every wrong one, for the viewer only.
          if (theirs !== controls) {
            gaps.push(`${page}?${name} (${encoding}): ${theirs} bytes shorter for the viewer, ${controls} for another`);
          }
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
