// What the compression benchmarks share: the built server of a checkout on a fresh demo database, a raw GET that
// keeps the body as sent, and the list of public pages.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const freePort = () =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.on("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

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

export async function startServer(root) {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-compression-"));
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "dist", "server.js")], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SEED_DEMO: "true",
      LOG_LEVEL: "silent",
      DATABASE_URL: "",
      RATE_LIMIT_READ_MAX: "100000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await get(base, "/readyz")).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${root}: the server did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The public pages, as /llms.txt lists them (its Pages and Optional sections, from the site's page list), and /. */
export async function pages(base) {
  const text = (await get(base, "/llms.txt")).body.toString("utf8");
  const paths = ["/"];
  let section = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) section = line.slice(3).trim();
    const m = /^- \[[^\]]*\]\(([^)]+)\)/.exec(line);
    if (m && (section === "Pages" || section === "Optional")) paths.push(new URL(m[1]).pathname);
  }
  return paths;
}
