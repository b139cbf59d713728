import { existsSync } from "node:fs";
import Fastify from "fastify";
import { describe, expect, it, vi } from "vitest";
import { mayBeMultipart, multipartForMultipartRequests } from "./multipart.js";

const BOUNDARY = "----civic-test";
const body = [
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="photo"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nbytes\r\n`,
  `--${BOUNDARY}--\r\n`,
].join("");

describe("@fastify/multipart for multipart requests only", () => {
  it("tells multipart requests by their Content-Type, loosely", () => {
    const req = (type?: string) => ({ headers: type === undefined ? {} : { "content-type": type } }) as never;
    expect(mayBeMultipart(req("multipart/form-data; boundary=x"))).toBe(true);
    expect(mayBeMultipart(req(" Multipart/Form-Data;boundary=x"))).toBe(true);
    expect(mayBeMultipart(req("application/x-www-form-urlencoded"))).toBe(false);
    expect(mayBeMultipart(req())).toBe(false);
  });

  it("still parses multipart bodies and removes the files a request saved once it is answered", async () => {
    const app = Fastify();
    await app.register(multipartForMultipartRequests);
    let saved: string[] = [];
    app.post("/upload", async (request) => {
      await request.saveRequestFiles();
      const files = request.savedRequestFiles ?? [];
      saved = files.map((f) => f.filepath);
      return { multipart: request.isMultipart(), files: files.length, exists: saved.every((p) => existsSync(p)) };
    });
    app.get("/", (request) => ({ multipart: request.isMultipart() }));
    await app.ready();
    const res = await app.inject({
      method: "POST",
      url: "/upload",
      payload: body,
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(res.json()).toEqual({ multipart: true, files: 1, exists: true });
    // The plugin's onResponse hook ran for this request: the saved file is gone.
    await vi.waitFor(() => expect(saved.some((p) => existsSync(p))).toBe(false));
    expect((await app.inject("/")).json()).toEqual({ multipart: false });
    await app.close();
  });
});
