// What the compression benchmarks share: the built server of a checkout on a fresh demo database, a raw GET that
// keeps the body as sent, and the list of public pages.
import { request } from "node:http";
import { publicPages, startDemoServer } from "../../scripts/demo-server.mjs";

/** GET with the given Accept-Encoding: status, headers and the body bytes as received (still encoded). */
export const get = (base, path, acceptEncoding) =>
  new Promise((ok, fail) => {
    const req = request(
      `${base}${path}`,
      { headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {}, agent: false },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", fail);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${path}: no answer in 30 s`)));
    req.on("error", fail);
    req.end();
  });

/** The built server of `root` on a fresh demo database (scripts/demo-server.mjs). */
export const startServer = (root) => startDemoServer(root);

/** The public pages, as /llms.txt lists them, and /. */
export const pages = publicPages;
