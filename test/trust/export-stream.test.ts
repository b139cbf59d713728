import { randomBytes } from "node:crypto";
import { type IncomingMessage, request as httpRequest } from "node:http";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, expect, it } from "vitest";
import { photoKey } from "../../src/core/media/images.js";
import { mediaStorage } from "../../src/core/media/storage.js";
import {
  type AccountsHarness,
  accountsHarness,
  makeReport,
  signInMailParts,
  tokenIn,
  Visitor,
} from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { turns, until } from "../helpers/wait.js";

/**
 * Issue 27 #4: the personal-data download is streamed (not built in memory), at most MAX_CONCURRENT_EXPORTS (2) are
 * streamed at once per process (503 with Retry-After beyond), and downloads are rate-limited per person and per
 * client, on both download routes.
 */
const HOUR = 60 * 60 * 1000;
const BIG_PHOTOS = 6;
const BIG_BYTES = 4 * 1024 * 1024;

/** A report with one real photo and BIG_PHOTOS more rows pointing at one 4 MB stored file: a ~25 MB archive. */
async function bigReport(h: AccountsHarness, email: string) {
  const report = await makeReport(h.app, { email, name: "Big Exporter" }, null, [await jpegWithGps()]);
  const db = h.app.civic.database.db;
  const { id: _id, ...photo } = await db
    .selectFrom("report_photos")
    .innerJoin("reports", "reports.id", "report_photos.report_id")
    .selectAll("report_photos")
    .where("reports.reference", "=", report.reference)
    .executeTakeFirstOrThrow();
  const hash = randomBytes(32).toString("hex");
  await mediaStorage(h.app.civic.config).put(photoKey(hash, "full"), randomBytes(BIG_BYTES));
  for (let i = 1; i <= BIG_PHOTOS; i++) {
    await db
      .insertInto("report_photos")
      .values({ ...photo, position: i, hash })
      .execute();
  }
  return report;
}

/** A download over a real connection that reads nothing until `resume()`. */
function heldDownload(port: number, cookie: string, csrf: string) {
  const body = new URLSearchParams({ _csrf: csrf }).toString();
  let response: IncomingMessage | null = null;
  const req = httpRequest({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/account/data/download",
    headers: {
      cookie,
      host: "civic.test",
      "content-type": "application/x-www-form-urlencoded",
      "content-length": Buffer.byteLength(body),
    },
  });
  req.on("error", () => {});
  const started = new Promise<IncomingMessage>((resolve) => {
    req.on("response", (res) => {
      response = res;
      res.pause();
      resolve(res);
    });
  });
  req.end(body);
  return {
    started,
    async read(): Promise<Buffer> {
      const res = await started;
      const parts: Buffer[] = [];
      for await (const chunk of res) parts.push(chunk as Buffer);
      return Buffer.concat(parts);
    },
    abort() {
      req.destroy();
      response?.destroy();
    },
  };
}

describeEachDb("streamed personal-data download", (dialect) => {
  let h: AccountsHarness;
  let port: number;
  beforeAll(async () => {
    h = await accountsHarness(dialect);
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(async () => h?.close());

  it("streams the archive, two at a time at most (503 with Retry-After beyond), and frees the slot of a client that left", async () => {
    h.advance(HOUR);
    const email = "big@example.org";
    const report = await bigReport(h, email);
    const v = new Visitor(h.app);
    await v.signIn(h, email);
    const csrf = tokenIn((await v.get("/account/data")).body);

    const first = heldDownload(port, v.cookie!, csrf);
    const second = heldDownload(port, v.cookie!, csrf);
    const [a, b] = await Promise.all([first.started, second.started]);
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("application/zip");
      // Sent as it is produced: no length known in advance.
      expect(res.headers["content-length"]).toBeUndefined();
      expect(res.headers["transfer-encoding"]).toBe("chunked");
    }

    // Both readers are stalled with most of their archive unsent: a third download is refused for now.
    const busy = await v.post("/account/data/download", { _csrf: csrf });
    expect(busy.statusCode).toBe(503);
    expect(Number(busy.headers["retry-after"])).toBeGreaterThan(0);
    expect(busy.headers["content-type"]).toContain("text/html");
    expect(busy.body).toContain("Many downloads are being prepared");

    // A client that goes away gives its slot back.
    second.abort();
    const connections = () => new Promise<number>((resolve) => h.app.server.getConnections((_e, n) => resolve(n)));
    // Until its connection is closed, and the close handlers that give the slot back have run.
    await until(async () => (await connections()) <= 1);
    await turns();
    const after = await v.post("/account/data/download", { _csrf: csrf });
    expect(after.statusCode).toBe(200);

    // The held one, read at last, is the whole archive, as the in-memory one was.
    const zip = unzipSync(new Uint8Array(await first.read()));
    const data = JSON.parse(strFromU8(zip["data.json"]!)) as { reports: { reference: string; photos: string[] }[] };
    expect(data.reports.map((r) => r.reference)).toEqual([report.reference]);
    expect(data.reports[0]!.photos).toHaveLength(BIG_PHOTOS + 1);
    for (let i = 2; i <= BIG_PHOTOS + 1; i++)
      expect(zip[`photos/${report.reference}-${i}.jpg`]?.length).toBe(BIG_BYTES);
    expect(unzipSync(new Uint8Array(after.rawPayload))["data.json"]).toBeDefined();
  }, 120_000);

  it("limits downloads per person on both routes, with 429 and Retry-After", async () => {
    h.advance(HOUR);
    const email = "often@example.org";
    await makeReport(h.app, { email });
    const v = new Visitor(h.app);
    await v.signIn(h, email);
    for (let i = 0; i < 10; i++) {
      const res = await v.submit("/account/data", "/account/data/download", {});
      expect(res.statusCode).toBe(200);
    }
    const limited = await v.submit("/account/data", "/account/data/download", {});
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["content-type"]).toContain("text/html");

    // The same person through an emailed /my-data link counts against the same limit.
    const asked = await new Visitor(h.app).submit("/my-data", "/my-data", { email });
    expect(asked.statusCode).toBe(200);
    const { path, token } = signInMailParts(await h.mailTo(email));
    const other = new Visitor(h.app);
    const page = await other.get(path);
    const viaLink = await other.post("/my-data/download", { _csrf: tokenIn(page.body), token });
    expect(viaLink.statusCode).toBe(429);

    // An hour later it works again.
    h.advance(HOUR);
    const again = await v.submit("/account/data", "/account/data/download", {});
    expect(again.statusCode).toBe(200);
    expect(again.headers["content-type"]).toBe("application/zip");
  }, 120_000);
});

describeEachDb("a download whose client stopped reading", (dialect) => {
  let h: AccountsHarness;
  let port: number;
  beforeAll(async () => {
    h = await accountsHarness(dialect, { CONNECTION_IDLE_SECONDS: "2" });
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(async () => h?.close());

  it("is closed after CONNECTION_IDLE_SECONDS, which frees its export slot", async () => {
    expect(h.app.server.timeout).toBe(2_000);
    const email = "stalled@example.org";
    await bigReport(h, email);
    const v = new Visitor(h.app);
    await v.signIn(h, email);
    const csrf = tokenIn((await v.get("/account/data")).body);
    const held = [heldDownload(port, v.cookie!, csrf), heldDownload(port, v.cookie!, csrf)];
    await Promise.all(held.map((d) => d.started));
    expect((await v.post("/account/data/download", { _csrf: csrf })).statusCode).toBe(503);

    // Neither reads: nothing moves on their connections, which the server closes after 2 s.
    const connections = () => new Promise<number>((resolve) => h.app.server.getConnections((_e, n) => resolve(n)));
    await until(async () => (await connections()) === 0);
    await turns();
    const after = await v.post("/account/data/download", { _csrf: csrf });
    expect(after.statusCode).toBe(200);
    for (const d of held) d.abort();
  }, 60_000);
});
