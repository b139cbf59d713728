import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../src/core/db/database.js";
import { projectRoot } from "../../src/core/web/paths.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { deliverStreetlightsTo, freePort, postReport } from "./support.js";

/**
 * Killed mid-send (issue 37): the first instance runs as the built server process (node dist/server.js), whose
 * forwarding job posts a report to a council that runs this platform (a second instance, in the test process). A
 * relay in front of the council passes the POST on and holds the council's answer, so the process is killed
 * (SIGKILL) after the council received and stored the report but before the first instance stored the answer. A
 * new process on the same database sends it again with the same Idempotency-Key: the council answers with the same
 * request, so the report arrives there exactly once, and the forwarding ends "sent" with the council's reference.
 */
const SECRET = "kill-test-secret-kill-test-secret-0123";

/** An HTTP relay to the council that, while `holding`, passes requests on but never returns the answer. */
class HoldingRelay {
  holding = true;
  readonly posts: { key: string; status: number }[] = [];
  private server: Server | null = null;
  private councilAnswered: (() => void) | null = null;
  port = 0;

  constructor(private readonly target: number) {}

  /** Resolves when the council has answered a POST the relay holds. */
  answered(): Promise<void> {
    return new Promise((resolve) => (this.councilAnswered = resolve));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.relay(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  private async relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "accept", "idempotency-key"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const answer = await fetch(`http://127.0.0.1:${this.target}${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers,
      ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (req.method === "POST") this.posts.push({ key: headers["idempotency-key"] ?? "", status: answer.status });
    if (req.method === "POST" && this.holding) {
      this.councilAnswered?.();
      return; // the answer is never returned: the sender is killed while it waits
    }
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(body);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const built = existsSync(join(projectRoot, "dist", "server.js"));

describeEachDb("a sending process killed mid-send", (dialect) => {
  let council: TestApp;
  let first: TestApp;
  let db: Database;
  let relay: HoldingRelay;
  let env: Record<string, string>;
  let reference: string;
  let server: ServerProcess | null = null;

  const councilCopies = () =>
    council.app.civic.database.db
      .selectFrom("reports")
      .select("reference")
      .where("description", "like", `%${reference}%`)
      .execute();
  const forwarding = () =>
    db.db
      .selectFrom("report_forwardings")
      .innerJoin("reports", "reports.id", "report_forwardings.report_id")
      .selectAll("report_forwardings")
      .where("reports.reference", "=", reference)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    if (!built) throw new Error('dist/server.js is missing: run "npm run build" first');
    council = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "1000" } });
    await council.app.listen({ port: 0, host: "127.0.0.1" });
    const councilKey = (await createApiKey(council.app.civic.database.db, "Village platform", new Date())).key;
    relay = new HoldingRelay((council.app.server.address() as { port: number }).port);
    await relay.start();

    // The first instance's database: seeded, its street-lighting department sending by Open311 through the relay,
    // one report waiting to be forwarded. Built in process (no workers run), then closed: the server process sends.
    const port = await freePort();
    const baseUrl = `http://village.example.org:${port}`;
    first = await createTestApp(dialect, {
      seed: true,
      env: { BASE_URL: baseUrl, SESSION_SECRET: SECRET, RATE_LIMIT_WRITE_MAX: "1000" },
    });
    await deliverStreetlightsTo(first.app, `http://127.0.0.1:${relay.port}/api/v2/`, councilKey);
    const ourKey = (await createApiKey(first.app.civic.database.db, "Test client", new Date())).key;
    reference = await postReport(first.app, ourKey, "Lamp flickering by the bus stop.");
    await first.app.close();
    db = first.db.reopen();
    env = {
      DATA_DIR: first.db.dataDir,
      ...(first.db.url ? { DATABASE_URL: first.db.url } : {}),
      BASE_URL: baseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      SEED_DEMO: "false",
      SESSION_SECRET: SECRET,
      FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
      FORWARDING_INTERVAL_SECONDS: "1",
      FORWARDING_TIMEOUT_SECONDS: "10",
      MAP_TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png",
    };
  }, 60_000);
  afterAll(async () => {
    server?.child.kill("SIGKILL");
    await server?.exited;
    await db?.close().catch(() => {});
    await first?.db.cleanup();
    await relay?.stop();
    await council?.close();
  });

  it("arrives at the council exactly once and ends sent with the council's reference", async () => {
    expect(await forwarding()).toMatchObject({ state: "pending", attempts: 0 });
    const answered = relay.answered();
    server = await startServerProcess(env);
    await answered;
    // The council has stored the report and answered; the sender has not stored the answer yet: kill it now.
    server.child.kill("SIGKILL");
    await server.exited;
    server = null;
    expect(await councilCopies()).toHaveLength(1);
    const interrupted = await forwarding();
    expect(interrupted).toMatchObject({ state: "pending", attempts: 1, service_request_id: null });
    expect(interrupted.locked_until).not.toBeNull();

    // The killed process's leases (the job's, 5 minutes, and the forwarding's, 2 minutes) run out: moved into the
    // past instead of waited for. A new process on the same database takes the forwarding over.
    const past = new Date(Date.now() - 1000).toISOString();
    await db.db.updateTable("job_leases").set({ leased_until: past, next_run_at: past }).execute();
    await db.db
      .updateTable("report_forwardings")
      .set({ locked_until: past })
      .where("id", "=", interrupted.id)
      .execute();
    relay.holding = false;
    server = await startServerProcess(env);
    const deadline = Date.now() + 10_000;
    while ((await forwarding()).state === "pending" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const sent = await forwarding();
    const copies = await councilCopies();
    expect(copies).toHaveLength(1);
    expect(sent).toMatchObject({ state: "sent", attempts: 2, service_request_id: copies[0]?.reference });
    // Two POSTs, one key; the council created the request once and answered the retry with the same one.
    expect(relay.posts.map((p) => p.key)).toEqual([sent.idempotency_key, sent.idempotency_key]);
    expect(relay.posts.map((p) => p.status)).toEqual([200, 200]);
  }, 30_000);
});
