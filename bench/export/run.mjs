// Personal-data export benchmark (issue 27 #4). Starts a built server (dist/server.js) on its own SQLite database,
// gives one address 100 reports with 300 photos (JPEGs of 300-600 KB), then downloads that address's data export
// through the /my-data link while polling /healthz every 50 ms and sampling the server's memory (VmRSS) every 50 ms.
//
//   node scripts/build.mjs && node bench/export/run.mjs [--server dist/server.js] [--reports 100] [--photos 300]
//        [--parallel 1]
//
// --server runs another build, e.g. the main worktree's (read only: its data goes to a temporary folder).
// --parallel N starts N downloads at once (the answers' status codes are printed). The downloads run in curl
// processes; this process only polls /healthz and reads the server's /proc/<pid>/status.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import sharp from "sharp";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const serverScript = resolve(opt("server", join(root, "dist", "server.js")));
const REPORTS = Number(opt("reports", 100));
const PHOTOS = Number(opt("photos", 300));
const PARALLEL = Number(opt("parallel", 1));
const EMAIL = "export-bench@example.org";
let child = null;
const deadline = setTimeout(() => {
  console.error("benchmark took longer than 3 minutes: stopped");
  child?.kill("SIGKILL");
  process.exit(2);
}, 180_000);

/** 300 distinct JPEGs: 20 noise images of 300-600 KB (cached between runs), each made distinct by a comment. */
async function photos() {
  const cache = join(tmpdir(), "civic-export-bench-photos-v2");
  mkdirSync(cache, { recursive: true });
  const bases = [];
  for (let i = 0; i < 20; i++) {
    const file = join(cache, `base-${i}.jpg`);
    if (!existsSync(file)) {
      const width = 1100 + i * 25;
      const jpeg = await sharp({
        create: {
          width,
          height: 900,
          channels: 3,
          background: { r: 90, g: 120, b: 60 },
          noise: { type: "gaussian", mean: 128, sigma: 30 + i },
        },
      })
        .jpeg({ quality: 72 + (i % 6) })
        .toBuffer();
      writeFileSync(file, jpeg);
    }
    bases.push(readFileSync(file));
  }
  return Array.from({ length: PHOTOS }, (_, i) => {
    const base = bases[i % bases.length];
    const text = Buffer.from(`export benchmark photo ${i}`);
    const com = Buffer.from([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff]);
    return Buffer.concat([base.subarray(0, 2), com, text, base.subarray(2)]);
  });
}

const freePort = () =>
  new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function http(port, method, path, { body, headers = {} } = {}) {
  return new Promise((res, rej) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent, headers }, (r) => {
      const parts = [];
      let bytes = 0;
      r.on("data", (d) => {
        bytes += d.length;
        if (!r.headers["content-type"]?.includes("zip")) parts.push(d);
      });
      r.on("end", () =>
        res({ status: r.statusCode, headers: r.headers, bytes, text: Buffer.concat(parts).toString() }),
      );
      r.on("error", rej);
    });
    req.on("error", rej);
    req.end(body);
  });
}

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

const dataDir = mkdtempSync(join(tmpdir(), "civic-export-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), serverScript], {
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    SESSION_SECRET: "bench-secret-bench-secret-bench-secret-01",
    LOG_LEVEL: "warn",
    SEED_DEMO: "true",
    DRAIN_SECONDS: "0",
    CIVIC_PRINT_URL: "0",
  },
  stdio: ["ignore", process.env.BENCH_SERVER_STDOUT ? "inherit" : "ignore", "inherit"],
});
try {
  const images = await photos();
  for (let i = 0; i < 300; i++) {
    const up = await http(port, "GET", "/healthz").catch(() => null);
    if (up?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }

  // The reports and photos, written straight into the database and the media folder (the server is running: WAL).
  const db = new Database(join(dataDir, "civic.db"));
  db.pragma("busy_timeout = 5000");
  const template = db.prepare("select * from reports order by id limit 1").get();
  const columns = Object.keys(template).filter((c) => c !== "id");
  const insertReport = db.prepare(
    `insert into reports (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})`,
  );
  const insertPhoto = db.prepare(
    "insert into report_photos (report_id, position, hash, width, height, content_type, created_at, visibility) values (?, ?, ?, 1000, 750, 'image/jpeg', ?, 'public')",
  );
  let photoBytes = 0;
  db.transaction(() => {
    for (let r = 0; r < REPORTS; r++) {
      const reference = `EXB${String(r).padStart(3, "0")}-${randomBytes(2).toString("hex").toUpperCase()}`;
      const row = {
        ...template,
        reference,
        title: `Export benchmark report ${r}`,
        reporter_email: EMAIL,
        reporter_name: "Bench Resident",
        account_id: null,
      };
      delete row.id;
      const id = Number(insertReport.run(row).lastInsertRowid);
      const mine = images.filter((_, i) => i % REPORTS === r);
      mine.forEach((jpeg, position) => {
        const hash = createHash("sha256").update(jpeg).digest("hex");
        const dir = join(dataDir, "media", "photos", hash.slice(0, 2));
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${hash}.jpg`), jpeg);
        photoBytes += jpeg.length;
        insertPhoto.run(id, position, hash, template.created_at);
      });
    }
  })();
  // A /my-data link for the address, as the email would give it.
  const token = randomBytes(32).toString("base64url");
  const now = new Date();
  db.prepare(
    "insert into email_challenges (purpose, email, account_id, handle_hash, token_hash, code_hash, created_at, expires_at, used_at) values ('my-data', ?, null, ?, ?, null, ?, ?, null)",
  ).run(
    EMAIL,
    createHash("sha256").update(randomBytes(32)).digest("base64url"),
    createHash("sha256").update(token).digest("base64url"),
    now.toISOString(),
    new Date(now.getTime() + 30 * 60_000).toISOString(),
  );
  db.close();
  const stored = readdirSync(join(dataDir, "media", "photos"), { recursive: true }).filter((f) =>
    String(f).endsWith(".jpg"),
  );
  console.log(`server: ${serverScript}`);
  console.log(`data: ${REPORTS} reports, ${stored.length} photos, ${mb(photoBytes)} of JPEG for ${EMAIL}`);

  const page = await http(port, "GET", `/my-data/open/${token}`);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (page.status !== 200 || !csrf) throw new Error(`the my-data page answered ${page.status}`);
  const form = new URLSearchParams({ _csrf: csrf, token }).toString();
  // The downloads run in curl processes, so reading the archive does not delay this process's /healthz timings.
  const download = () =>
    new Promise((res, rej) => {
      const curl = spawn("curl", [
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code} %{size_download}",
        "-H",
        `origin: ${base}`,
        "--data",
        form,
        `${base}/my-data/download`,
      ]);
      let out = "";
      curl.stdout.on("data", (d) => (out += d));
      curl.on("error", rej);
      curl.on("close", () => {
        const [status, bytes] = out.trim().split(" ").map(Number);
        res({ status, bytes });
      });
    });

  // Warm-up, then /healthz for 3 s without a download (the machine's own noise), then the memory before.
  for (let i = 0; i < 20; i++) await http(port, "GET", "/healthz");
  const quiet = [];
  for (const end = performance.now() + 3000; performance.now() < end;) {
    const sent = performance.now();
    await http(port, "GET", "/healthz");
    quiet.push(performance.now() - sent);
    await new Promise((r) => setTimeout(r, 50));
  }
  quiet.sort((a, b) => a - b);
  await new Promise((r) => setTimeout(r, 500));
  const before = rss(child.pid);

  const latencies = [];
  const slow = [];
  let started = performance.now();
  let peak = before;
  const inFlight = new Set();
  const poller = setInterval(() => {
    peak = Math.max(peak, rss(child.pid));
    const sent = performance.now();
    const p = http(port, "GET", "/healthz").then(() => {
      latencies.push(performance.now() - sent);
      if (performance.now() - sent > 100)
        slow.push(`${((sent - started) / 1000).toFixed(2)} s: ${(performance.now() - sent).toFixed(0)} ms`);
    });
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }, 50);
  started = performance.now();
  const answers = await Promise.all(Array.from({ length: PARALLEL }, download));
  const took = performance.now() - started;
  await new Promise((r) => setTimeout(r, 200));
  clearInterval(poller);
  await Promise.all(inFlight);

  latencies.sort((a, b) => a - b);
  const statuses = answers.map((a) => a.status).join(", ");
  const zipBytes = answers.filter((a) => a.status === 200).map((a) => a.bytes);
  console.log(
    `downloads: ${PARALLEL} at once, answers ${statuses}; archive ${zipBytes.map(mb).join(", ")}; ${(took / 1000).toFixed(2)} s`,
  );
  console.log(`server RSS: ${mb(before)} before, peak ${mb(peak)} during, growth ${mb(peak - before)}`);
  console.log(
    `/healthz without a download (${quiet.length} answers): p50 ${pct(quiet, 50).toFixed(1)} ms, p99 ${pct(quiet, 99).toFixed(1)} ms, max ${quiet.at(-1).toFixed(1)} ms`,
  );
  console.log(
    `/healthz every 50 ms during the download (${latencies.length} answers): p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1).toFixed(1)} ms`,
  );
  if (slow.length > 0)
    console.log(`answers over 100 ms (time after the download started: latency): ${slow.slice(0, 12).join("; ")}`);
} finally {
  child.kill("SIGKILL");
  agent.destroy();
  clearTimeout(deadline);
  rmSync(dataDir, { recursive: true, force: true });
}
