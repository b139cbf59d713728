import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import {
  AccessLogController,
  BatchedStdout,
  FLUSH_MS,
  hundredths,
  jsonString,
  loggerOptions,
  plainPino,
} from "../../src/core/http/logger.js";
import { forLog, MAX_LOGGED_CHARS, redactDeep, redactEmails, redactSecrets } from "../../src/core/http/redact.js";
import { createTestDatabase, describeEachDb, type TestDatabase, testConfig } from "../helpers/app.js";
import { runScript } from "../helpers/run-script.js";
import { until } from "../helpers/wait.js";

describe("email redaction for logs", () => {
  it("removes plain and URL-encoded addresses", () => {
    expect(redactEmails("sent to jo.bloggs+civic@example.co.uk ok")).toBe("sent to [email] ok");
    expect(redactEmails("/status?email=jo%40example.org&x=1")).toBe("/status?email=[email]&x=1");
    expect(redactEmails("/status?email=JO%40Example.ORG")).toBe("/status?email=[email]");
    expect(redactEmails("a@b.cd and c@d.ef, x@localhost, @example.org")).toBe(
      "[email] and [email], x@localhost, @example.org",
    );
    expect(redactEmails("a@example.org.5")).toBe("[email].5");
    expect(redactEmails("no address here")).toBe("no address here");
  });

  it("removes addresses percent-encoded more than once, dots and at sign alike", () => {
    expect(redactEmails("/reports?q=jo%2540example.org&x=1")).toBe("/reports?q=[email]&x=1");
    expect(redactEmails("/reports?q=jo%252540example%252Eorg")).toBe("/reports?q=[email]");
    expect(redactEmails("/reports?q=jo%40example%2Eorg%2Euk")).toBe("/reports?q=[email]");
    expect(redactEmails("/reports?q=jo%40example%2eorg")).toBe("/reports?q=[email]");
    expect(forLog("next=%2Fstatus%3Femail%3Djo%252Bx%2540example.org")).not.toContain("jo");
    // Still nothing that is not an address.
    expect(redactEmails("/reports?q=%2540&page=540")).toBe("/reports?q=%2540&page=540");
  });

  it("walks nested objects, arrays and errors, and drops secret fields", () => {
    const out = redactDeep({
      to: ["a@example.org"],
      inner: { e: new Error("bad b@example.org") },
      api_key: "civic_secret",
    }) as { to: string[]; inner: { e: { message: string } }; api_key: string };
    expect(out.to[0]).toBe("[email]");
    expect(out.inner.e.message).toBe("bad [email]");
    expect(out.api_key).toBe("[redacted]");
  });

  /**
   * A string whose reads are counted, standing in for a primitive one: `charCodeAt` counts one step per call and
   * remembers the furthest index read; `slice` and `substring` remember the furthest end they copied; anything
   * else that needs the text (includes, replace, a regular expression) reads all of it and counts its length.
   * Work counted so does not depend on how busy the machine is.
   */
  class CountedString extends String {
    steps = 0;
    furthest = 0;
    constructor(private readonly text: string) {
      super(text);
    }
    override charCodeAt(i: number): number {
      this.steps++;
      this.furthest = Math.max(this.furthest, i + 1);
      return this.text.charCodeAt(i);
    }
    override slice(start?: number, end?: number): string {
      const part = this.text.slice(start, end);
      this.steps += part.length;
      this.furthest = Math.max(this.furthest, (start ?? 0) + part.length);
      return part;
    }
    override substring(start: number, end?: number): string {
      const part = this.text.substring(start, end);
      this.steps += part.length;
      this.furthest = Math.max(this.furthest, Math.min(start, end ?? start) + part.length);
      return part;
    }
    override toString(): string {
      this.steps += this.text.length;
      this.furthest = this.text.length;
      return this.text;
    }
    override valueOf(): string {
      return this.toString();
    }
  }
  const counted = (text: string) => new CountedString(text) as unknown as string & CountedString;

  // Inputs that made the old pattern backtrack: long runs of local-part characters with at signs and no domain.
  const hostile = {
    "local part, no at": (n: number) => "a".repeat(n),
    "encoded at signs": (n: number) => "x%40".repeat(n / 4),
    "at signs without tld": (n: number) => "a@b".repeat(n / 3),
    "dots after an at": (n: number) => `a@${"b.".repeat(n / 2)}`,
    "run then at": (n: number) => `${"a.".repeat(n / 2)}@`,
    "twice-encoded at signs and dots": (n: number) => `x%2540y%252E`.repeat(n / 12),
  };

  it.each(Object.entries(hostile))("is linear on hostile input (%s)", (_name, make) => {
    const work = (n: number): number => {
      const text = counted(make(n));
      expect(String(redactEmails(text))).toBe(redactEmails(make(n)));
      return text.steps;
    };
    const [small, large] = [work(16 * 1024), work(64 * 1024)];
    // A few reads of each character at most (at most sixteen), and four times the input is about four times the work (the old
    // pattern's grew with the square of the length: sixteen times).
    expect(large).toBeLessThan(16 * 64 * 1024);
    expect(large).toBeLessThan(4.2 * small);
  });

  it.each(Object.entries(hostile))("reads no further than the bounded prefix (%s)", (_name, make) => {
    const huge = make(1024 * 1024);
    const text = counted(huge);
    const logged = forLog(text);
    expect(text.furthest).toBeLessThanOrEqual(MAX_LOGGED_CHARS);
    expect(text.steps).toBeLessThan(16 * MAX_LOGGED_CHARS);
    expect(logged.length).toBeLessThan(MAX_LOGGED_CHARS + 40);
    // What is logged is what the prefix alone gives, but for how much was cut.
    const cut = (s: string) => s.replace(/\[truncated \d+ chars\]$/, "[truncated]");
    expect(logged).toMatch(new RegExp(`\\[truncated ${huge.length - MAX_LOGGED_CHARS} chars\\]$`));
    expect(cut(logged)).toBe(cut(forLog(huge.slice(0, MAX_LOGGED_CHARS + 1))));
  });

  it("logs any long text as its bounded prefix alone would be logged", () => {
    const cut = (s: string) => s.replace(/\[truncated \d+ chars\]$/, "[truncated]");
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", ".", "@", "%", "2", "4", "0", "E", "5", "=", "&", "?") }),
        fc.string({ minLength: 1 }),
        (body, tail) => {
          const prefix = body
            .repeat(Math.ceil((MAX_LOGGED_CHARS + 1) / Math.max(body.length, 1)))
            .slice(0, MAX_LOGGED_CHARS);
          if (prefix.length < MAX_LOGGED_CHARS) return;
          const text = counted(prefix + tail.repeat(50));
          expect(cut(forLog(text))).toBe(cut(forLog(prefix + "x")));
          expect(text.furthest).toBeLessThanOrEqual(MAX_LOGGED_CHARS);
        },
      ),
    );
  });

  it("bounds what is logged and marks the cut, without leaving half an address", () => {
    const long = `/reports?q=${"x".repeat(5000)}`;
    const logged = forLog(long);
    expect(logged.startsWith("/reports?q=xxx")).toBe(true);
    expect(logged).toMatch(/…\[truncated \d+ chars\]$/);
    expect(logged.length).toBeLessThan(MAX_LOGGED_CHARS + 40);
    const cut = `${"/".repeat(MAX_LOGGED_CHARS - 12)}jo.bloggs@exa${"m".repeat(100)}ple.org`;
    expect(forLog(cut)).not.toContain("jo.bloggs");
  });

  it("redacts api_key and other secret parameters", () => {
    expect(redactSecrets("/api/v2/requests.json?api_key=civic_abc123&status=open")).toBe(
      "/api/v2/requests.json?api_key=[redacted]&status=open",
    );
    expect(redactSecrets("/x?a=1&API_KEY=k;token=t&access_token=u#f")).toBe(
      "/x?a=1&API_KEY=[redacted];token=[redacted]&access_token=[redacted]#f",
    );
    expect(redactSecrets("/x?monkey=1&keyword=2")).toBe("/x?monkey=1&keyword=2");
    // Names percent-encoded, as the query parser decodes them: once or more.
    expect(redactSecrets("/x?%74oken=a&t%256Fken=b&api%5Fkey=c&%74oken%5B%5D=d&q=%74oken")).toBe(
      "/x?%74oken=[redacted]&t%256Fken=[redacted]&api%5Fkey=[redacted]&%74oken%5B%5D=[redacted]&q=%74oken",
    );
    expect(redactSecrets("/x?n%61me=jo&%zz=1")).toBe("/x?n%61me=jo&%zz=1");
    expect(forLog(`/api/v2/requests.json?${"p=1&".repeat(600)}api_key=civic_abc`)).not.toContain("civic_abc");
  });
});

describe("log output", () => {
  it(`is written in one batch every ${FLUSH_MS} ms, in order`, async () => {
    const chunks: string[] = [];
    const sink = new BatchedStdout({ write: (chunk: string) => chunks.push(chunk) });
    sink.write("a\n");
    await new Promise((resolve) => setImmediate(resolve));
    sink.write("b\n");
    expect(chunks).toEqual([]);
    // The batch's timer, not a sleep of FLUSH_MS: the batch is written when its timer fires, however late.
    await until(() => chunks.length > 0);
    expect(chunks).toEqual(["a\nb\n"]);
    sink.write("c\n");
    sink.flush();
    expect(chunks).toEqual(["a\nb\n", "c\n"]);
    sink.write("x".repeat(70 * 1024));
    expect(chunks).toHaveLength(3);
  });
});

describe("the access line's own JSON writers", () => {
  it("write what JSON.stringify writes for any string, escapes and lone surrogates included", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme-ascii" })), (text) => {
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { seed: 20261128, numRuns: 2000 },
    );
    for (const text of ['a"b', "a\\b", "\u0000\u001f", "\ud800", "\udc00x", "😀", "\u2028", "é/ü?x=1"]) {
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
  });

  it("write a response time as JSON writes Math.round(ms * 100) / 100", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => {
        expect(hundredths(ms)).toBe(JSON.stringify(Math.round(ms * 100) / 100));
      }),
      { seed: 20261128, numRuns: 5000 },
    );
    for (const ms of [0, 0.004, 0.005, 0.1, 0.25, 1, 1.005, 9.999, 10.1, 123.45, 2 ** 31]) {
      expect(hundredths(ms)).toBe(JSON.stringify(Math.round(ms * 100) / 100));
    }
  });
});

describe("stdout as a file", () => {
  it("gets every line, in order, and the last batch at exit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "civic-stdout-"));
    try {
      const file = join(dir, "out.log");
      // stdout is a regular file, as under a process manager writing a log file: the batches go to it by
      // fs.writeSync. The process exits without waiting for the last batch's timer.
      const result = await runScript(
        `
        import { BatchedStdout, stdoutWriter } from "./src/core/http/logger.ts";
        const sink = new BatchedStdout(stdoutWriter());
        for (let i = 0; i < 5000; i++) sink.write(JSON.stringify({ i, text: "é€😀".repeat(i % 40) }) + "\\n");
        `,
        20_000,
        file,
      );
      expect(result.code, result.output).toBe(0);
      const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
      expect(lines).toHaveLength(5000);
      lines.forEach((line, i) => expect(JSON.parse(line)).toEqual({ i, text: "é€😀".repeat(i % 40) }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachDb("the request log", (dialect) => {
  let t: TestDatabase;
  let lines: string[];
  let app: Awaited<ReturnType<typeof buildApp>>;
  const accessLog = new AccessLogController();
  beforeAll(async () => {
    t = await createTestDatabase(dialect, { migrate: false });
    lines = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        cb();
      },
    });
    const config = testConfig(t.dataDir, { LOG_LEVEL: "info", ...(t.url ? { DATABASE_URL: t.url } : {}) });
    const options = loggerOptions("info");
    app = await buildApp(config, {
      database: t.database,
      assets: { url: (name) => `/assets/${name}` },
      logger: typeof options === "object" ? { ...options, stream } : options,
      logController: accessLog,
    });
    app.get("/logs-something", { schema: { hide: true } }, (request) => {
      request.log.info({ detail: "x" }, "something");
      return "ok";
    });
  });
  afterAll(async () => {
    await app.close();
    await t.cleanup();
  });

  it("writes one access line per request, without the api_key, emails or a huge URL", async () => {
    lines.length = 0;
    const secret = "civic_abcdefghijklmnopqrstuvwxyz012345";
    const res = await app.inject({
      url: `/api/v2/services.json?api_key=${secret}&email=someone.private%40example.org`,
      headers: { "x-request-id": "access-line-test-1" },
    });
    expect(res.statusCode).toBe(200);
    await app.inject(`/api/v1/businesses?q=${"a%40".repeat(20_000)}`);
    await app.inject({ url: "/nowhere?token=t0ps3cret", headers: { "x-request-id": "access-line-test-2" } });
    const all = lines.join("\n");
    expect(all).not.toContain(secret);
    expect(all).not.toContain("t0ps3cret");
    expect(all).not.toMatch(/someone\.private/);
    const mine = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const first = mine.filter((l) => l.reqId === "access-line-test-1");
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      level: 30,
      msg: "request",
      method: "GET",
      url: "/api/v2/services.json?api_key=[redacted]&email=[email]",
      statusCode: 200,
    });
    expect(typeof first[0]?.responseTime).toBe("number");
    const notFound = mine.filter((l) => l.reqId === "access-line-test-2" && l.msg === "request");
    expect(notFound).toMatchObject([{ statusCode: 404, url: "/nowhere?token=[redacted]" }]);
    for (const line of lines) expect(line.length).toBeLessThan(MAX_LOGGED_CHARS + 1000);
  });

  it("counts 304 answers per path and logs the counts in one line, not a line each", async () => {
    const first = await app.inject({ url: "/api/v1/businesses" });
    const etag = String(first.headers.etag);
    const feed = await app.inject({ url: "/reports.atom" });
    lines.length = 0;
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({
        url: "/api/v1/businesses?page=1&api_key=civic_secret0123456789",
        headers: { "if-none-match": etag, "x-request-id": `not-modified-${i}` },
      });
      expect(res.statusCode).toBe(304);
    }
    const again = await app.inject({ url: "/reports.atom", headers: { "if-none-match": String(feed.headers.etag) } });
    expect(again.statusCode).toBe(304);
    await app.inject({ url: "/api/v1/businesses", headers: { "x-request-id": "modified-1" } });
    // The 200 has its access line at once; the 304s have none of their own.
    let parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.filter((l) => l.msg === "request").map((l) => [l.reqId, l.statusCode])).toEqual([
      ["modified-1", 200],
    ]);
    expect(lines.join("\n")).not.toContain("not-modified-");
    // The counts are written once a minute, and when the app closes.
    accessLog.writeNotModified();
    parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = parsed.filter((l) => l.msg === "not modified");
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({
      level: 30,
      count: 4,
      notModified: [
        { method: "GET", path: "/api/v1/businesses", count: 3 },
        { method: "GET", path: "/reports.atom", count: 1 },
      ],
    });
    expect(lines.join("\n")).not.toContain("civic_secret");
    accessLog.writeNotModified();
    expect(lines.filter((l) => l.includes("not modified"))).toHaveLength(1);
  });

  it("gives every 304 its own access line with LOG_NOT_MODIFIED=each", async () => {
    const each = await buildApp(
      testConfig(t.dataDir, { LOG_LEVEL: "info", LOG_NOT_MODIFIED: "each", ...(t.url ? { DATABASE_URL: t.url } : {}) }),
      {
        database: t.database,
        assets: { url: (name) => `/assets/${name}` },
        logger: {
          ...(loggerOptions("info") as object),
          stream: new Writable({
            write(chunk, _enc, cb) {
              lines.push(...String(chunk).split("\n").filter(Boolean));
              cb();
            },
          }),
        },
      },
    );
    try {
      const first = await each.inject({ url: "/api/v1/businesses" });
      lines.length = 0;
      await each.inject({
        url: "/api/v1/businesses",
        headers: { "if-none-match": String(first.headers.etag), "x-request-id": "each-304" },
      });
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(parsed.filter((l) => l.msg === "request")).toMatchObject([{ reqId: "each-304", statusCode: 304 }]);
    } finally {
      await each.close();
    }
  });

  it("follows the logger's level when it changes at run time", async () => {
    lines.length = 0;
    app.log.level = "warn";
    try {
      await app.inject({ url: "/api/v1/businesses", headers: { "x-request-id": "access-line-test-quiet" } });
    } finally {
      app.log.level = "info";
    }
    await app.inject({ url: "/api/v1/businesses", headers: { "x-request-id": "access-line-test-loud" } });
    const ids = lines.map((l) => (JSON.parse(l) as { reqId?: string }).reqId);
    expect(ids).not.toContain("access-line-test-quiet");
    expect(ids).toContain("access-line-test-loud");
  });

  it("writes the same access line whether or not the request logged through its own logger", async () => {
    lines.length = 0;
    await app.inject({ url: "/api/v1/businesses", headers: { "x-request-id": "access-line-test-3" } });
    await app.inject({ url: "/logs-something", headers: { "x-request-id": "access-line-test-4" } });
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // The request's own line carries its id, as pino's child logger writes it.
    expect(parsed.find((l) => l.msg === "something")).toMatchObject({ reqId: "access-line-test-4", detail: "x" });
    const access = parsed.filter((l) => l.msg === "request");
    expect(access.map((l) => l.reqId)).toEqual(["access-line-test-3", "access-line-test-4"]);
    // One reqId each, in the same place: the lines differ only in their values.
    const keys = ["level", "time", "pid", "hostname", "reqId", "method", "url", "statusCode", "responseTime", "msg"];
    for (const l of access) expect(Object.keys(l)).toEqual(keys);
    for (const line of lines.filter((l) => l.includes('"msg":"request"'))) {
      expect(line.match(/"reqId"/g)).toHaveLength(1);
    }
    // The first line was written by hand (plainPino), the second by pino through the request's child logger: the
    // same bytes but for the values.
    expect(plainPino(app.log)).not.toBeNull();
    const shape = (line: string) =>
      line
        .replace(/"time":\d+/, '"time":0')
        .replace(/"reqId":"[^"]*"/, '"reqId":""')
        .replace(/"url":"[^"]*"/, '"url":""')
        .replace(/"responseTime":[\d.e-]+/, '"responseTime":0');
    const [byHand, byPino] = lines.filter((l) => l.includes('"msg":"request"')).map(shape);
    expect(byHand).toBe(byPino);
    expect(byHand).toMatch(/^\{"level":30,"time":0,"pid":\d+,"hostname":"[^"]*","reqId":"","method":"GET"/);
  });
});
