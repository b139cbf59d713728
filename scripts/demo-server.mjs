// The built server of a checkout (`node dist/server.js`, after `npm run build`) on a fresh SQLite demo village in a
// temporary folder, on a free loopback port, for the scripts and benchmarks that look at the site as a visitor does
// (scripts/screenshots.mjs, bench/a11y/lighthouse.mjs). `signIn` makes an account with a role through the command
// line and signs it in as a person would, by the emailed link (mail goes to files: no SMTP_URL), and gives the
// session cookie.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free TCP port on the loopback address. */
export const freePort = () =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.on("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

/** The hidden fields of the form posting to `action` on a page (the form token, a link's token). */
function hiddenFields(html, action) {
  const at = html.indexOf(`action="${action}"`);
  if (at < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(at, html.indexOf("</form>", at));
  const fields = {};
  for (const [input] of form.matchAll(/<input[^>]*>/g)) {
    if (!/type="hidden"/.test(input)) continue;
    const name = /name="([^"]*)"/.exec(input)?.[1];
    const value = /value="([^"]*)"/.exec(input)?.[1] ?? "";
    if (name) fields[name] = value.replaceAll("&amp;", "&").replaceAll("&quot;", '"');
  }
  return fields;
}

export async function startDemoServer(root, { env: extra = {} } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "civic-demo-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATA_DIR: dataDir,
    SEED_DEMO: "true",
    LOG_LEVEL: "silent",
    DATABASE_URL: "",
    SMTP_URL: "",
    RATE_LIMIT_READ_MAX: "100000",
    ...extra,
  };
  const child = spawn(process.execPath, [join(root, "dist", "server.js")], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${root}: the server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${root}: the server did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }

  const civic = (...args) =>
    new Promise((ok, fail) =>
      execFile(process.execPath, [join(root, "bin", "civic.js"), ...args], { cwd: root, env }, (error, out, err) =>
        error ? fail(new Error(`civic ${args.join(" ")}: ${error.message}\n${err}`)) : ok(out),
      ),
    );

  const post = (path, fields) =>
    fetch(`${base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
      body: new URLSearchParams(fields).toString(),
    });

  return {
    base,
    dataDir,
    /** Runs `civic ARGS…` against this server's database and data folder; resolves to what it printed. */
    civic,
    /** Signs `email` in with `role` (resident, moderator or admin) by the emailed link; the Cookie header value. */
    async signIn(email, role = "resident") {
      if (role !== "resident") await civic("users", "grant", email, role);
      const form = await (await fetch(`${base}/sign-in`)).text();
      const asked = await post("/sign-in/email", { ...hiddenFields(form, "/sign-in/email"), email });
      if (asked.status >= 400) throw new Error(`sign-in mail for ${email}: ${asked.status}`);
      // The outbox has the message at once (the mail worker writes its .eml file a moment later).
      const mail = await civic("mail", "last");
      const link = new RegExp(`${base.replaceAll(".", "\\.")}(/sign-in/link/[A-Za-z0-9_-]+)`).exec(mail)?.[1];
      if (!link) throw new Error(`no sign-in link in the newest mail:\n${mail}`);
      const page = await (await fetch(`${base}${link}`)).text();
      const signedIn = await post("/sign-in/link", hiddenFields(page, "/sign-in/link"));
      const cookie = /^[^;]+/.exec(signedIn.headers.get("set-cookie") ?? "")?.[0];
      if (!cookie) throw new Error(`sign-in of ${email}: ${signedIn.status}, no session cookie`);
      return cookie;
    },
    async stop() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The public pages, as /llms.txt lists them (its Pages and Optional sections, from the site's page list), and /. */
export async function publicPages(base) {
  const text = await (await fetch(`${base}/llms.txt`)).text();
  const paths = ["/"];
  let section = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) section = line.slice(3).trim();
    const m = /^- \[[^\]]*\]\(([^)]+)\)/.exec(line);
    if (m && (section === "Pages" || section === "Optional")) paths.push(new URL(m[1]).pathname);
  }
  return paths;
}
