import { existsSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { expect, it } from "vitest";
import type { Database } from "../../src/core/db/database.js";
import { projectRoot } from "../../src/core/web/paths.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { createApiKey } from "../../src/open311/keys.js";
import { MIN_FILL_MS } from "../../src/reports/routes.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";
import { type ServerProcess as Server, startServerProcess as startServer } from "../helpers/server-process.js";
import { startTestSmtp, type TestSmtp } from "../helpers/smtp.js";

/**
 * Crash safety of the built server process: 200 concurrent report submissions (half through the web form, half
 * through Open311; some with a photo, some with an email), `kill -9` part-way, a restart on the same database, the
 * outbox drained. Every submission acknowledged with a reference must exist with its photos, and every stored
 * report's confirmation must have been delivered, once per message (a stable Message-ID per outbox row). Mail
 * delivery is at least once: a kill between the SMTP server's acceptance and the row being marked sent makes the
 * restarted process send that message again, with the same Message-ID; the test counts distinct Message-IDs and
 * reports the raw count next to it.
 */
const SUBMISSIONS = 200;
/** The server is killed once this many submissions have been acknowledged. */
const KILL_AFTER_ACKS = 60;
const WAVE = 50;
const WAVE_GAP_MS = 1_000;
/** The outbox worker's round (MAIL_POLL_SECONDS; 5 s unless set): a round a second, so the test waits less. */
const MAIL_POLL_SECONDS = 1;

interface Submission {
  i: number;
  via: "web" | "open311";
  email: string | null;
  photo: Buffer | null;
  /** The reference the server acknowledged, if it did. */
  reference?: string;
  /** HTTP status of an answer that was not an acknowledgement. */
  refusedWith?: number;
}

async function photoFor(i: number): Promise<Buffer> {
  const colour = `#${((i * 2_654_435_761) % 0xffffff).toString(16).padStart(6, "0")}`;
  return sharp({ create: { width: 160, height: 120, channels: 3, background: colour } })
    .jpeg()
    .toBuffer();
}

async function submit(s: Submission, url: string, apiKey: string, csrf: string): Promise<void> {
  const description = `Crash test ${s.i}: a deep pothole on the corner.`;
  const base: Record<string, string> =
    s.via === "web"
      ? {
          category: "pothole",
          title: `Crash test ${s.i}`,
          description,
          lat: "50.98650",
          lng: "-2.04400",
          "attribute[road_or_pavement]": "road",
          email: s.email ?? "",
          website: "",
          action: "send",
          _csrf: csrf,
        }
      : {
          api_key: apiKey,
          service_code: "pothole",
          lat: "50.9865",
          long: "-2.044",
          description,
          "attribute[road_or_pavement]": "road",
          ...(s.email ? { email: s.email } : {}),
        };
  let body: FormData | URLSearchParams;
  if (s.photo || s.via === "web") {
    const form = new FormData();
    for (const [k, v] of Object.entries(base)) form.append(k, v);
    if (s.photo) {
      form.append(
        s.via === "web" ? "photos" : "media",
        new Blob([new Uint8Array(s.photo)], { type: "image/jpeg" }),
        "p.jpg",
      );
    }
    body = form;
  } else {
    body = new URLSearchParams(base);
  }
  // Like a real client, a 503 (every upload slot busy, on a loaded machine) is retried after its Retry-After.
  let res: Response;
  let text: string;
  for (let attempt = 1; ; attempt++) {
    res = await fetch(s.via === "web" ? `${url}/report` : `${url}/api/v2/requests.json`, {
      method: "POST",
      body,
      redirect: "manual",
      headers: { origin: url },
    });
    text = await res.text();
    if (res.status !== 503 || attempt === 5) break;
    await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? "1") * 1000));
  }
  if (s.via === "web" && res.status === 303) {
    s.reference = /\/report\/sent\/([^/?]+)(\?|$)/.exec(res.headers.get("location") ?? "")?.[1];
  } else if (s.via === "open311" && (res.status === 200 || res.status === 201)) {
    s.reference = (JSON.parse(text) as { service_request_id: string }[])[0]?.service_request_id;
  }
  if (!s.reference) s.refusedWith = res.status;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describeEachDb("crash safety of the built server", (dialect) => {
  it(`kill -9 during ${SUBMISSIONS} concurrent submissions loses no acknowledged report or its mail`, async () => {
    if (!existsSync(join(projectRoot, "dist/server.js")))
      throw new Error('dist/server.js is missing: run "npm run build"');
    const started = Date.now();
    const phases: string[] = [];
    const mark = (label: string) => phases.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)}`);
    const t: TestDatabase = await createTestDatabase(dialect);
    let smtp: TestSmtp | undefined;
    let server: Server | undefined;
    let database: Database | undefined;
    try {
      await seedDemoVillage(t.database.db, new Date());
      const { key } = await createApiKey(t.database.db, "crash test", new Date());
      await t.database.close();
      let killOnMail: () => void = () => {};
      smtp = await startTestSmtp(0, [], { onReceived: () => killOnMail() });
      const env: Record<string, string> = {
        DATA_DIR: t.dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        SEED_DEMO: "false",
        SMTP_URL: smtp.url,
        MAIL_POLL_SECONDS: String(MAIL_POLL_SECONDS),
        SESSION_SECRET: "crash-test-secret-crash-test-secret-0123",
        RATE_LIMIT_WRITE_MAX: "100000",
        RATE_LIMIT_READ_MAX: "100000",
        ...(t.url ? { DATABASE_URL: t.url } : {}),
      };
      mark("setup");
      // The photos are made while the server starts.
      const made = Promise.all(
        Array.from({ length: SUBMISSIONS }, async (_, i): Promise<Submission> => ({
          i,
          via: i % 2 === 0 ? "web" : "open311",
          email: i % 3 === 0 ? null : `crash-${i}@example.org`,
          photo: i % 4 < 2 ? await photoFor(i) : null,
        })),
      );
      server = await startServer(env);
      const submissions = await made;
      mark("started");
      const { url } = server;

      const tokens: string[] = [];
      await Promise.all(
        submissions
          .filter((s) => s.via === "web")
          .map(async (s) => {
            const page = await (await fetch(`${url}/report?category=pothole`)).text();
            tokens[s.i] = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
          }),
      );
      mark("tokens");
      await new Promise((r) => setTimeout(r, MIN_FILL_MS + 200));

      // Waves of 50 concurrent submissions, a second apart, so the outbox worker (a round every second) sends mail
      // while reports are still arriving. The server is killed inside the SMTP conversation: the first message that
      // arrives once 60 submissions are acknowledged is kept by the SMTP server, and the sender dies before it
      // hears "250 OK", so it cannot mark that message sent. Should no mail arrive by the last wave, half of the
      // last wave's answers trigger the kill instead.
      let acks = 0;
      let killedBy = "";
      const running = server;
      const kill = (why: string) => {
        if (killedBy) return;
        killedBy = why;
        running.child.kill("SIGKILL");
      };
      killOnMail = () => {
        if (acks >= KILL_AFTER_ACKS) kill("mail");
      };
      /** Per submission sent: true when it got an HTTP answer, false when the connection was cut. */
      const pending: Promise<boolean>[] = [];
      for (let wave = 0; wave * WAVE < SUBMISSIONS && !killedBy; wave++) {
        if (wave > 0) await new Promise((r) => setTimeout(r, WAVE_GAP_MS));
        const last = (wave + 1) * WAVE >= SUBMISSIONS;
        let answered = 0;
        for (const s of submissions.slice(wave * WAVE, (wave + 1) * WAVE)) {
          pending.push(
            submit(s, url, key, tokens[s.i] ?? "").then(
              () => true,
              () => false,
            ),
          );
          void pending[pending.length - 1]?.then(() => {
            if (s.reference) acks++;
            if (last && ++answered === WAVE / 2) kill("answers");
          });
        }
      }
      const outcomes = await Promise.all(pending);
      kill("end");
      await running.exited;
      killOnMail = () => {};
      const killedOutput = running.output();
      mark("killed");
      expect(killedBy).not.toBe("end");
      const unanswered = outcomes.filter((answered) => !answered).length;
      const acknowledged = submissions.filter((s) => s.reference);
      const refused = submissions.filter((s) => s.refusedWith !== undefined);
      expect(
        refused.map((s) => `${s.via} ${s.i}: ${s.refusedWith}`),
        killedOutput,
      ).toEqual([]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
      expect(acknowledged.length).toBeLessThan(SUBMISSIONS);

      // The killed process's claim on a message it was sending expires after the outbox lock time (2 minutes);
      // here that time is skipped by expiring the claims, as if the restart had come two minutes later.
      database = t.reopen();
      const db = database.db;
      await db
        .updateTable("outbox")
        .set({ locked_until: null, next_attempt_at: new Date().toISOString() })
        .where("sent_at", "is", null)
        .execute();
      const mailsBeforeRestart = smtp.received.length;

      server = await startServer(env);
      mark("restarted");
      const restarted = server;
      await waitUntil(
        async () => (await db.selectFrom("outbox").select("id").where("sent_at", "is", null).execute()).length === 0,
        90_000,
        "the outbox to drain",
      );

      mark("drained");
      const stored = await db
        .selectFrom("reports")
        .select(["id", "reference", "reporter_email", "description"])
        .where("description", "like", "Crash test %")
        .execute();
      const byReference = new Map(stored.map((r) => [r.reference, r]));
      const missing: string[] = [];
      for (const s of acknowledged) {
        const row = byReference.get(s.reference as string);
        if (!row) {
          missing.push(`${s.via} ${s.i} (${s.reference})`);
          continue;
        }
        expect(row.description).toBe(`Crash test ${s.i}: a deep pothole on the corner.`);
        expect(row.reporter_email).toBe(s.email);
        const photos = await db.selectFrom("report_photos").select("hash").where("report_id", "=", row.id).execute();
        expect(photos.length, `photos of ${s.reference}`).toBe(s.photo ? 1 : 0);
        for (const p of photos) {
          for (const file of [`${p.hash}.jpg`, `${p.hash}-thumb.jpg`]) {
            const res = await fetch(`${restarted.url}/photos/${file}`);
            expect(res.status, file).toBe(200);
            expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
          }
        }
      }
      expect(missing).toEqual([]);

      // Every stored report with an email got its confirmation: one Message-ID per report; no mail for a report
      // that does not exist.
      const confirmations = smtp.received.filter((m) => m.to.some((a) => a.startsWith("crash-")));
      const idsByAddress = new Map<string, Set<string>>();
      for (const m of confirmations) {
        for (const a of m.to) {
          const ids = idsByAddress.get(a) ?? new Set<string>();
          ids.add(m.parsed.messageId ?? "");
          idsByAddress.set(a, ids);
        }
      }
      const withEmail = stored.filter((r) => r.reporter_email);
      for (const r of withEmail) {
        expect(idsByAddress.get(r.reporter_email as string)?.size ?? 0, `confirmations to ${r.reporter_email}`).toBe(1);
      }
      const storedAddresses = new Set(withEmail.map((r) => r.reporter_email));
      expect([...idsByAddress.keys()].filter((a) => !storedAddresses.has(a))).toEqual([]);
      const distinct = [...idsByAddress.values()].reduce((n, ids) => n + ids.size, 0);
      const allIds = new Set(smtp.received.map((m) => m.parsed.messageId));

      console.log(
        `[crash ${dialect}] killed on ${killedBy === "mail" ? "an SMTP delivery" : "answers"}: ` +
          `${pending.length} of ${SUBMISSIONS} sent before the kill, ${acknowledged.length} acknowledged, ` +
          `${unanswered} cut off, ` +
          `${acknowledged.length - missing.length} of them stored with their photos, ` +
          `${stored.length - acknowledged.length} more stored without an answer (killed before it was sent), ` +
          `${withEmail.length} stored reports with an email: ${distinct} distinct confirmations delivered ` +
          `in ${confirmations.length} SMTP deliveries; all mail: ${allIds.size} messages in ${smtp.received.length} ` +
          `deliveries, ${mailsBeforeRestart} of them before the kill; ${phases.join(", ")}`,
      );
    } finally {
      server?.child.kill("SIGKILL");
      await server?.exited;
      await database?.close().catch(() => {});
      await smtp?.close();
      await t.cleanup();
    }
  }, 240_000);
});
