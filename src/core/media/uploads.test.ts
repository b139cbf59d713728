import { existsSync, readdirSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../../../test/helpers/app.js";
import { jpegWithGps } from "../../../test/helpers/images.js";
import { until } from "../../../test/helpers/wait.js";
import { createApiKey } from "../../open311/keys.js";
import { MAX_CONCURRENT_UPLOADS } from "./uploads.js";

const BOUNDARY = "----civic-test-boundary";
const MB = 1024 * 1024;

interface Body {
  stream: Readable;
  /**
   * Bytes handed to the server so far (at most one chunk ahead of what it read). A refused upload is read and
   * dropped for at most 4 MB after the answer (a lingering close), so "not read" means well under the file size.
   */
  pulled(): number;
  /** Stops sending without ending: a client that stalls mid-file. */
  abort(): void;
}

/**
 * A multipart body produced on demand, so a test sees how much of it the server read: the fields, then one file of
 * `fileBytes` (a real photo when `photo` is given, then zeros), then `fieldsAfter`. `stallAt` stops producing after
 * that many file bytes, until `abort()`.
 */
function multipartStream(
  fields: [string, string][],
  file: { field: string; fileBytes: number; photo?: Buffer; stallAt?: number },
  fieldsAfter: [string, string][] = [],
): Body {
  const part = (name: string, value: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    fields.map(([n, v]) => part(n, v)).join("") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n${fieldsAfter.map(([n, v]) => part(n, v)).join("")}--${BOUNDARY}--\r\n`);
  const photo = file.photo ?? Buffer.alloc(0);
  let sent = 0;
  let fileSent = 0;
  let stage: "head" | "file" | "done" = "head";
  let stalled = false;
  const chunk = 64 * 1024;
  const stream = new Readable({
    read() {
      if (stage === "head") {
        stage = "file";
        sent += head.length;
        this.push(head);
        return;
      }
      if (stage === "file") {
        if (file.stallAt !== undefined && fileSent >= file.stallAt) {
          stalled = true;
          return;
        }
        const n = Math.min(chunk, file.fileBytes - fileSent);
        if (n > 0) {
          const data = fileSent < photo.length ? photo.subarray(fileSent, fileSent + n) : Buffer.alloc(n);
          fileSent += data.length;
          sent += data.length;
          this.push(data);
          return;
        }
        stage = "done";
        sent += tail.length;
        this.push(tail);
        this.push(null);
      }
    },
  });
  return {
    stream,
    pulled: () => sent,
    abort() {
      if (stalled || stage !== "done") stream.destroy(new Error("client went away"));
    },
  };
}

const headers = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

describeEachDb("uploads", (dialect) => {
  let t: TestApp;
  let key: string;
  let offset = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      // No wait for a slot, so the upload past MAX_CONCURRENT_UPLOADS is answered 503 at once.
      env: { MAX_PHOTO_MB: "30", RATE_LIMIT_WRITE_MAX: "12", UPLOAD_WAIT_SECONDS: "0" },
    });
    key = (await createApiKey(t.app.civic.database.db, "uploads test", new Date())).key;
  });
  afterAll(async () => t?.close());

  const tempFiles = () => {
    const dir = join(t.config.dataDir, "tmp", "uploads");
    return existsSync(dir) ? readdirSync(dir, { recursive: true }) : [];
  };
  /** The temporary files left once the request's cleanup has run (a response can be sent just before it). */
  const leftovers = async () => {
    for (let i = 0; i < 100 && tempFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    return tempFiles();
  };
  const open311Fields = (apiKey: string): [string, string][] => [
    ["api_key", apiKey],
    ["service_code", "pothole"],
    ["description", "A pothole, with a photo"],
    ["lat", "50.9862"],
    ["long", "-2.0437"],
    ["attribute[road_or_pavement]", "road"],
  ];
  const post = (url: string, body: Body) => t.app.inject({ method: "POST", url, headers, payload: body.stream });

  it("refuses an Open311 upload with an unknown key, or with the key after the file, without reading the file", async () => {
    const wrongKey = multipartStream(open311Fields("not-a-key"), { field: "media", fileBytes: 30 * MB });
    const res = await post("/api/v2/requests.json", wrongKey);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual([{ code: 403, description: expect.stringMatching(/api_key/) }]);
    expect(res.headers.connection).toBe("close");
    expect(wrongKey.pulled()).toBeLessThan(6 * MB);

    const keyLast = multipartStream(open311Fields(key).slice(1), { field: "media", fileBytes: 30 * MB }, [
      ["api_key", key],
    ]);
    const late = await post("/api/v2/requests.json", keyLast);
    expect(late.statusCode).toBe(403);
    expect(keyLast.pulled()).toBeLessThan(6 * MB);
    expect(await leftovers()).toEqual([]);
  });

  it("refuses a web form upload without a valid form token without reading the file", async () => {
    const body = multipartStream(
      [
        ["_csrf", "forged"],
        ["category", "pothole"],
      ],
      { field: "photos", fileBytes: 30 * MB },
    );
    const res = await post("/report", body);
    expect(res.statusCode).toBe(403);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(body.pulled()).toBeLessThan(6 * MB);
    expect(await leftovers()).toEqual([]);
  });

  it("stores a photo read from the temporary store and removes the temporary files after success and failure", async () => {
    const photo = await jpegWithGps();
    const ok = multipartStream(open311Fields(key), { field: "media", fileBytes: photo.length, photo });
    const res = await post("/api/v2/requests.json", ok);
    expect(res.statusCode, res.body).toBe(200);
    const reference = (res.json() as { service_request_id: string }[])[0]?.service_request_id as string;
    const stored = await t.app.civic.database.db
      .selectFrom("report_photos")
      .innerJoin("reports", "reports.id", "report_photos.report_id")
      .select("report_photos.hash")
      .where("reports.reference", "=", reference)
      .execute();
    expect(stored).toHaveLength(1);
    expect(await leftovers()).toEqual([]);

    const notAPhoto = multipartStream(open311Fields(key), { field: "media", fileBytes: 2 * MB });
    const bad = await post("/api/v2/requests.json", notAPhoto);
    expect(bad.statusCode).toBe(400);
    expect(notAPhoto.pulled()).toBeGreaterThan(2 * MB);
    expect(await leftovers()).toEqual([]);

    // The web form too, with fields after the file as browsers send them.
    const _csrf = await formToken(t.app, "/report?category=pothole");
    offset += 5_000;
    const web = multipartStream(
      [
        ["_csrf", _csrf],
        ["category", "pothole"],
        ["title", "Pothole with a photo"],
        ["description", "Deep."],
        ["lat", "50.98650"],
        ["lng", "-2.04400"],
        ["attribute[road_or_pavement]", "road"],
      ],
      { field: "photos", fileBytes: photo.length, photo },
      [
        ["website", ""],
        ["action", "send"],
      ],
    );
    const sent = await post("/report", web);
    expect(sent.statusCode).toBe(303);
    expect(await leftovers()).toEqual([]);
  });

  it("removes the partial file of an aborted upload, and answers 503 with Retry-After when every slot is busy", async () => {
    const stalled = Array.from({ length: MAX_CONCURRENT_UPLOADS }, () =>
      multipartStream(open311Fields(key), { field: "media", fileBytes: 20 * MB, stallAt: 2 * MB }),
    );
    const pending = stalled.map((body) => post("/api/v2/requests.json", body));
    // Wait until every stalled upload holds its slot and has written part of its file.
    await until(() => tempFiles().filter((f) => String(f).includes("/")).length >= stalled.length);
    expect(tempFiles().filter((f) => String(f).includes("/"))).toHaveLength(stalled.length);

    const extra = multipartStream(open311Fields(key), { field: "media", fileBytes: 20 * MB });
    const busy = await post("/api/v2/requests.json", extra);
    expect(busy.statusCode).toBe(503);
    expect(Number(busy.headers["retry-after"])).toBeGreaterThan(0);
    expect(busy.json()).toEqual([{ code: 503, description: expect.any(String) }]);
    expect(busy.headers.connection).toBe("close");
    expect(extra.pulled()).toBeLessThan(6 * MB);

    for (const body of stalled) body.abort();
    await Promise.allSettled(pending);
    expect(await leftovers()).toEqual([]);
  });

  it("refuses a file over MAX_PHOTO_MB with 413 and keeps nothing of it", async () => {
    const big = multipartStream(open311Fields(key), { field: "media", fileBytes: 31 * MB });
    const res = await post("/api/v2/requests.json", big);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual([{ code: 413, description: expect.any(String) }]);
    expect(await leftovers()).toEqual([]);
  });

  it("refuses an upload over the rate limit without reading the file", async () => {
    // Use up the key's write limit with small posts (no file), then send a large one.
    for (let i = 0; i < 20; i++) {
      const small = multipartStream(open311Fields(key), { field: "media_url", fileBytes: 0 });
      if ((await post("/api/v2/requests.json", small)).statusCode === 429) break;
    }
    const body = multipartStream(open311Fields(key), { field: "media", fileBytes: 30 * MB });
    const limited = await post("/api/v2/requests.json", body);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(body.pulled()).toBeLessThan(6 * MB);
    expect(await leftovers()).toEqual([]);
  });
});

describe("uploads over a real connection", () => {
  it("answers a refused upload at once and closes the connection instead of reading the rest", async () => {
    const t = await createTestApp("sqlite", { seed: true });
    try {
      await t.app.listen({ port: 0, host: "127.0.0.1" });
      const port = (t.app.server.address() as { port: number }).port;
      const head =
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\nnot-a-key\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="a.jpg"\r\n\r\n`;
      const total = 30 * MB;
      const socket = connect(port, "127.0.0.1");
      let response = "";
      let closed = false;
      socket.on("data", (d: Buffer) => (response += d.toString()));
      socket.on("close", () => (closed = true));
      socket.on("error", () => {});
      socket.write(
        `POST /api/v2/requests.json HTTP/1.1\r\nHost: civic.test\r\nContent-Type: ${headers["content-type"]}\r\n` +
          `Content-Length: ${total + head.length}\r\n\r\n${head}`,
      );
      const chunk = Buffer.alloc(64 * 1024);
      let written = 0;
      // Until the server closes the connection or everything is sent; a full socket buffer waits until it drains.
      while (!closed && written < total) {
        if (socket.write(chunk)) written += chunk.length;
        else await until(() => closed || !socket.writableNeedDrain);
      }
      socket.destroy();
      expect(response).toMatch(/^HTTP\/1.1 403/);
      expect(closed).toBe(true);
      // Only what the socket buffers took before the server closed the connection.
      expect(written).toBeLessThan(total / 2);
    } finally {
      await t.close();
    }
  });
});
