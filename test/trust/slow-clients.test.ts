import { existsSync, readdirSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { jpegWithGps } from "../helpers/images.js";
import { until } from "../helpers/wait.js";

/**
 * Invariant "slow clients": uploads that trickle in (one byte every second) lose their upload slot and their
 * temporary file after the configured window, so a normal upload still gets through. A real listening server,
 * since the point is what happens on the connections.
 */
const BOUNDARY = "----civic-slow-client";
const SLOTS = 2;

describeEachDb("slow clients", (dialect) => {
  let t: TestApp;
  let key: string;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: {
        MAX_CONCURRENT_UPLOADS: String(SLOTS),
        // Long enough that, without a minimum rate, the normal upload would be refused with 503.
        UPLOAD_WAIT_SECONDS: "20",
        UPLOAD_MIN_BYTES_PER_SECOND: "1024",
        UPLOAD_RATE_WINDOW_SECONDS: "2",
        RATE_LIMIT_WRITE_MAX: "100",
      },
    });
    key = (await createApiKey(t.app.civic.database.db, "slow clients test", new Date())).key;
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => t?.close());

  const tempFiles = () => {
    const dir = join(t.config.dataDir, "tmp", "uploads");
    return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : [];
  };
  const fields = (): [string, string][] => [
    ["api_key", key],
    ["service_code", "pothole"],
    ["description", "A pothole, with a photo"],
    ["lat", "50.9862"],
    ["long", "-2.0437"],
    ["attribute[road_or_pavement]", "road"],
  ];

  /** A client that sends the fields and the first 8 KB of a 1 MB file, then one byte a second. */
  function trickle(): { socket: Socket; response: () => string; closed: Promise<void>; stop: () => void } {
    const head =
      fields()
        .map(([n, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`)
        .join("") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="slow.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    const total = head.length + 1024 * 1024 + `\r\n--${BOUNDARY}--\r\n`.length;
    const port = Number(new URL(base).port);
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (d: Buffer) => (response += d.toString()));
    socket.on("error", () => {});
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.write(
      `POST /api/v2/requests.json HTTP/1.1\r\nHost: civic.test\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${total}\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(8 * 1024, 1));
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(Buffer.from([1]));
    }, 1_000);
    return {
      socket,
      response: () => response,
      closed,
      stop: () => {
        clearInterval(timer);
        socket.destroy();
      },
    };
  }

  it("gives requests, headers, keep-alive and idle connections time limits", () => {
    expect(t.app.server.requestTimeout).toBe(300_000);
    expect(t.app.server.headersTimeout).toBe(20_000);
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    expect(t.app.server.timeout).toBe(120_000);
  });

  it("stops uploads that send a byte every second, frees their slots and files; a normal upload gets through", async () => {
    const slow = Array.from({ length: SLOTS }, () => trickle());
    try {
      // Wait until every slow upload holds a slot and has its temporary file.
      await until(() => tempFiles().filter((f) => f.includes("/")).length >= SLOTS);
      expect(tempFiles().filter((f) => f.includes("/"))).toHaveLength(SLOTS);

      const photo = await jpegWithGps();
      const form = new FormData();
      for (const [n, v] of fields()) form.append(n, v);
      form.append("media", new Blob([new Uint8Array(photo)], { type: "image/jpeg" }), "pothole.jpg");
      const res = await fetch(`${base}/api/v2/requests.json`, { method: "POST", body: form });
      const answer = await res.text();
      expect(res.status, answer).toBe(200);
      expect(answer).toContain("service_request_id");

      // The slow ones were answered 408 in the API's format, and their connections closed.
      await Promise.all(slow.map((s) => s.closed));
      for (const s of slow) {
        expect(s.response()).toMatch(/^HTTP\/1.1 408/);
        expect(s.response()).toContain('"code":408');
      }
      await until(() => tempFiles().length === 0);
      expect(t.app.uploadStore.slots.busy).toBe(0);
    } finally {
      for (const s of slow) s.stop();
    }
  }, 60_000);
});
