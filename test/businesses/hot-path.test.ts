import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loggerOptions } from "../../src/core/http/logger.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";

/** Discards the log lines (the logger itself, with its hooks and the access line, is the deployed one). */
const sink = new Writable({
  write(_chunk, _encoding, callback) {
    callback();
  },
});

/**
 * The 304 of a business list is the platform's cheapest answer (bench/businesses): every global hook runs on it, so
 * one that waits for a promise when it has nothing to do (a session lookup without a session, multipart clean-up
 * without a multipart body) makes every request of the app wait for the microtask queue.
 */
describeEachDb("the hot path of a cached API answer", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      logger: { ...(loggerOptions("info") as object), stream: sink },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** A request and its response, which records the status and headers it is written with. */
  const request = (headers: Record<string, string>) => {
    const req = new IncomingMessage(new Socket());
    req.method = "GET";
    req.url = "/api/v1/businesses";
    req.headers = { host: "civic.test", ...headers };
    const res = new ServerResponse(req);
    const written: { status?: number; headers: Record<string, unknown> } = { headers: {} };
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number, head?: Record<string, unknown>) => {
      written.status = status;
      Object.assign(written.headers, head);
      return writeHead(status, head as Record<string, string>);
    }) as typeof res.writeHead;
    return { req, res, written };
  };

  it("runs the whole hook chain of a 304 synchronously, with every header of the platform", async () => {
    const first = await t.app.inject({ url: "/api/v1/businesses", headers: { "accept-encoding": "br" } });
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    // The dataset was checked just now, so the route answers without waiting for it (as under load).
    await t.app.inject({ url: "/api/v1/businesses", headers: { "accept-encoding": "br", "if-none-match": etag } });
    // A session cookie on an API request, too: there is no session to look up there.
    const extras: Record<string, string>[] = [{}, { cookie: "civic_session=whatever" }];
    for (const extra of extras) {
      const { req, res, written } = request({ "accept-encoding": "br", "if-none-match": etag, ...extra });
      t.app.routing(req, res);
      // Answered before this call returned: no hook waited for a promise.
      expect(res.writableEnded).toBe(true);
      expect(written.status).toBe(304);
      expect(written.headers).toMatchObject({
        etag,
        "x-content-type-options": "nosniff",
        "access-control-allow-origin": "*",
        "cache-control": "max-age=3600, s-maxage=86400",
      });
      expect(written.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._-]{8,64}$/);
    }
  });
});
