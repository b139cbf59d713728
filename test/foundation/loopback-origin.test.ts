import { describe, expect, it } from "vitest";
import { printedUrl } from "../../src/core/http/loopback.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

describe("the address npm start prints", () => {
  it("is BASE_URL's origin when BASE_URL names this server on a loopback name and its port", () => {
    // The default configuration: BASE_URL http://localhost:3000, listening on 127.0.0.1:3000.
    expect(printedUrl("http://localhost:3000", "http://127.0.0.1:3000", "127.0.0.1")).toBe("http://localhost:3000");
    expect(printedUrl("http://127.0.0.1:3000", "http://127.0.0.1:3000", "127.0.0.1")).toBe("http://127.0.0.1:3000");
    expect(printedUrl("http://[::1]:3000", "http://127.0.0.1:3000", "localhost")).toBe("http://[::1]:3000");
    expect(printedUrl("http://localhost", "http://127.0.0.1:80", "127.0.0.1")).toBe("http://localhost");
    expect(printedUrl("http://localhost:3000/civic", "http://[::1]:3000", "::1")).toBe("http://localhost:3000");
  });

  it("is the address listened on when BASE_URL is elsewhere (another port, PORT=0, another host)", () => {
    expect(printedUrl("http://localhost:0", "http://127.0.0.1:41234", "127.0.0.1")).toBe("http://127.0.0.1:41234");
    expect(printedUrl("http://localhost:8080", "http://127.0.0.1:3000", "127.0.0.1")).toBe("http://127.0.0.1:3000");
    expect(printedUrl("http://civic.test", "http://127.0.0.1:41234", "127.0.0.1")).toBe("http://127.0.0.1:41234");
    expect(printedUrl("https://civic.example.org", "http://127.0.0.1:3000", "127.0.0.1")).toBe("http://127.0.0.1:3000");
  });

  it("is BASE_URL when listening on every interface, as before", () => {
    expect(printedUrl("https://civic.example.org", "http://127.0.0.1:3000", "0.0.0.0")).toBe(
      "https://civic.example.org",
    );
    expect(printedUrl("http://localhost:3000", "http://[::1]:3000", "::")).toBe("http://localhost:3000");
  });
});

describeEachDb("a request on the other loopback name", (dialect) => {
  async function withApp(env: Record<string, string>, body: (t: TestApp) => Promise<void>): Promise<void> {
    const t = await createTestApp(dialect, { env });
    try {
      await body(t);
    } finally {
      await t.close();
    }
  }
  const get = (t: TestApp, url: string, headers: Record<string, string>, method: "GET" | "POST" | "HEAD" = "GET") =>
    t.app.inject({ method, url, headers });

  for (const trustProxy of [undefined, "1"]) {
    const env = { BASE_URL: "http://localhost:3000", ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) };
    const label = trustProxy ? "with TRUST_PROXY" : "without TRUST_PROXY";

    it(`goes to BASE_URL's origin with the same path and query (${label})`, async () => {
      await withApp(env, async (t) => {
        for (const host of ["127.0.0.1:3000", "[::1]:3000", "127.0.0.1:3000".toUpperCase()]) {
          const res = await get(t, "/reports?page=2&q=a%20b", { host });
          expect(res.statusCode).toBe(307);
          expect(res.headers.location).toBe("http://localhost:3000/reports?page=2&q=a%20b");
          expect(res.headers["cache-control"]).toBe("no-store");
        }
        const post = await get(t, "/sign-in", { host: "127.0.0.1:3000" }, "POST");
        expect(post.statusCode).toBe(307);
        expect(post.headers.location).toBe("http://localhost:3000/sign-in");
        const head = await get(t, "/", { host: "[::1]:3000" }, "HEAD");
        expect(head.statusCode).toBe(307);
        // Never another origin: a path that looks like a host stays a path on BASE_URL's origin.
        const sly = await get(t, "//evil.example/x", { host: "127.0.0.1:3000" });
        expect(sly.headers.location).toBe("http://localhost:3000//evil.example/x");
      });
    });

    it(`leaves BASE_URL's own name, other ports and other hosts alone (${label})`, async () => {
      await withApp(env, async (t) => {
        for (const host of ["localhost:3000", "127.0.0.1:4000", "127.0.0.1", "civic.example.org", "127.0.0.2:3000"]) {
          const res = await get(t, "/healthz", { host });
          expect(res.statusCode, host).toBe(200);
          expect(res.headers.location, host).toBeUndefined();
        }
      });
    });
  }

  it("goes the other way when BASE_URL is on 127.0.0.1, and counts an absent port as the scheme's", async () => {
    await withApp({ BASE_URL: "http://127.0.0.1:3000" }, async (t) => {
      const res = await get(t, "/about", { host: "localhost:3000" });
      expect(res.statusCode).toBe(307);
      expect(res.headers.location).toBe("http://127.0.0.1:3000/about");
    });
    await withApp({ BASE_URL: "http://localhost" }, async (t) => {
      expect((await get(t, "/about", { host: "127.0.0.1" })).headers.location).toBe("http://localhost/about");
      expect((await get(t, "/about", { host: "127.0.0.1:80" })).headers.location).toBe("http://localhost/about");
      expect((await get(t, "/healthz", { host: "127.0.0.1:3000" })).statusCode).toBe(200);
    });
  });

  it("never redirects when BASE_URL is not a loopback name (a reverse proxy deployment)", async () => {
    for (const trustProxy of [undefined, "1"]) {
      await withApp(
        { BASE_URL: "https://civic.example.org", ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) },
        async (t) => {
          for (const host of ["127.0.0.1:3000", "localhost:3000", "[::1]:3000", "civic.example.org"]) {
            const res = await get(t, "/healthz", { host, "x-forwarded-host": "localhost:3000" });
            expect(res.statusCode, host).toBe(200);
          }
        },
      );
    }
  });

  it("judges the host a trusted proxy forwarded, and ignores an untrusted X-Forwarded-Host", async () => {
    await withApp({ BASE_URL: "http://localhost:3000", TRUST_PROXY: "1" }, async (t) => {
      // The browser was on the public name, the proxy reached us on 127.0.0.1: not ours to move.
      const proxied = await get(t, "/healthz", { host: "127.0.0.1:3000", "x-forwarded-host": "civic.example.org" });
      expect(proxied.statusCode).toBe(200);
      const other = await get(t, "/about", { host: "localhost:3000", "x-forwarded-host": "127.0.0.1:3000" });
      expect(other.headers.location).toBe("http://localhost:3000/about");
    });
    await withApp({ BASE_URL: "http://localhost:3000" }, async (t) => {
      const res = await get(t, "/about", { host: "127.0.0.1:3000", "x-forwarded-host": "localhost:3000" });
      expect(res.statusCode).toBe(307);
      expect(res.headers.location).toBe("http://localhost:3000/about");
    });
  });
});
