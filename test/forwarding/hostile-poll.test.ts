import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseStatusTable, setDepartmentDelivery } from "../../src/catalogue/delivery.js";
import { runCli } from "../../src/cli.js";
import { createApiKey } from "../../src/open311/keys.js";
import { pollCouncils } from "../../src/reports/council-poll.js";
import { sendDueForwardings } from "../../src/reports/forward.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { deliverStreetlightsTo, postReport } from "./support.js";

type Mode = "slow" | "huge" | "invalid" | "types" | "html" | "unknown" | "redirect" | "stranger" | "closed" | "ok";

const KEY = "council-secret-key-456";

/**
 * A fake council (node http) answering the poll with hostile answers. Each is bounded (time, size), plain text,
 * escaped where shown, never followed elsewhere, never a crash or a stuck job; a council that fails delays no other
 * council, and neither the key nor the query is logged.
 */
describeEachDb("polling a hostile council", (dialect) => {
  let t: TestApp;
  let fake: Server;
  let mode: Mode = "ok";
  let reference: string;
  let councilId = "";
  const polls: string[] = [];
  const logged: string[] = [];
  const keep = (...args: unknown[]) => void logged.push(JSON.stringify(args));
  const log = { info: keep, warn: keep, error: keep };

  const db = () => t.app.civic.database.db;
  const poll = () => pollCouncils(t.app.civic, { log });
  const status = async () =>
    (await db().selectFrom("reports").select("status").where("reference", "=", reference).executeTakeFirstOrThrow())
      .status;
  const councilUpdates = () =>
    db()
      .selectFrom("report_updates")
      .innerJoin("reports", "reports.id", "report_updates.report_id")
      .select(["report_updates.note", "report_updates.event", "report_updates.status"])
      .where("reports.reference", "=", reference)
      .where("report_updates.author_kind", "=", "council")
      .orderBy("report_updates.id")
      .execute();
  const forwarding = () =>
    db()
      .selectFrom("report_forwardings")
      .selectAll()
      .where("service_request_id", "=", councilId)
      .executeTakeFirstOrThrow();
  const answer = (items: unknown) => JSON.stringify(items);

  beforeAll(async () => {
    let serial = 0;
    fake = createServer((req, res) => {
      req.resume();
      const url = req.url ?? "";
      if (req.method === "POST") {
        serial++;
        // The first report gets a token, resolved later through tokens/{token}.json.
        return void res
          .writeHead(201)
          .end(serial === 1 ? '[{"token":"T-1"}]' : `[{"service_request_id":"C-${serial}"}]`);
      }
      if (url.includes("/tokens/T-1.json"))
        return void res.writeHead(200).end('[{"service_request_id":"C-1","token":"T-1"}]');
      if (url.startsWith("/good/")) {
        polls.push(`good ${url}`);
        return void res
          .writeHead(200)
          .end(answer([{ service_request_id: "G-1", status: "closed", status_notes: "Done." }]));
      }
      polls.push(`${mode} ${url}`);
      const now = new Date().toISOString();
      switch (mode) {
        case "slow":
          return; // never answers
        case "huge":
          res.writeHead(200, { "content-type": "application/json" });
          return void res.end(
            `[${`{"service_request_id":"C-1","status":"open","status_notes":"${"x".repeat(1000)}"},`.repeat(600)}{}]`,
          );
        case "invalid":
          return void res.writeHead(200).end("<html>not json");
        case "types":
          return void res
            .writeHead(200)
            .end(
              answer([
                { service_request_id: { a: 1 }, status: "closed" },
                { service_request_id: "C-1", status: ["closed"] },
                7,
                null,
              ]),
            );
        case "html":
          return void res.writeHead(200).end(
            answer([
              {
                service_request_id: "C-1",
                status: "In Progress",
                status_notes:
                  '<script>alert("x")</script><b>Crew</b> booked for <a href="http://evil.example.net/">Tuesday</a>',
                updated_datetime: now,
              },
            ]),
          );
        case "unknown":
          return void res.writeHead(200).end(
            answer([
              {
                service_request_id: "C-1",
                status: "awaiting_budget",
                status_notes: "Waiting for next year's budget.",
                updated_datetime: now,
              },
            ]),
          );
        case "closed":
          return void res
            .writeHead(200)
            .end(
              answer([{ service_request_id: "C-1", status: "closed", status_notes: "Closed.", updated_datetime: now }]),
            );
        case "redirect":
          return void res.writeHead(302, { location: "http://evil.example.net/requests.json" }).end();
        case "stranger":
          return void res
            .writeHead(200)
            .end(answer([{ service_request_id: "SOMEONE-ELSE", status: "closed", status_notes: "Not yours." }]));
        default:
          return void res.writeHead(200).end(answer([{ service_request_id: "C-1", status: "open" }]));
      }
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const port = (fake.address() as { port: number }).port;
    t = await createTestApp(dialect, {
      seed: true,
      env: {
        RATE_LIMIT_WRITE_MAX: "1000",
        FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
        FORWARDING_TIMEOUT_SECONDS: "1",
      },
    });
    const key = (await createApiKey(db(), "Test client", new Date())).key;
    await deliverStreetlightsTo(t.app, `http://127.0.0.1:${port}/c/`, KEY);
    reference = await postReport(t.app, key, "Lamp out by the pond.");
    expect(await sendDueForwardings(t.app.civic)).toMatchObject({ sent: 1 });
    expect((await db().selectFrom("report_forwardings").selectAll().executeTakeFirstOrThrow()).token).toBe("T-1");

    // A second, well-behaved council (another department), to show a failing one delays nothing else.
    const highways = await db()
      .selectFrom("categories")
      .select(["department_id"])
      .where("code", "=", "pothole")
      .executeTakeFirstOrThrow();
    await setDepartmentDelivery(
      db(),
      t.app.civic.config,
      highways.department_id as number,
      { method: "open311", endpoint: `http://127.0.0.1:${port}/good/`, services: { pothole: "pothole" } },
      { accountId: null, at: new Date() },
    );
    const other = await db()
      .selectFrom("reports")
      .select("id")
      .where("category_code", "=", "pothole")
      .executeTakeFirstOrThrow();
    const at = new Date().toISOString();
    await db()
      .insertInto("report_forwardings")
      .values({
        report_id: other.id,
        department_id: highways.department_id,
        department_name: "Highways",
        method: "open311",
        destination: `http://127.0.0.1:${port}/good/`,
        service_code: "pothole",
        idempotency_key: "test-good-1",
        state: "sent",
        next_attempt_at: at,
        created_at: at,
        sent_at: at,
        service_request_id: "G-1",
      })
      .execute();
  });
  afterAll(async () => {
    fake?.closeAllConnections();
    await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it("resolves the council's token to its service_request_id, then polls by id with the key", async () => {
    mode = "ok";
    const figures = await poll();
    expect(figures).toMatchObject({ departments: 2, failed: 0 });
    councilId = "C-1";
    const row = await forwarding();
    expect(row).toMatchObject({ service_request_id: "C-1", council_status: "open", sync_error: null });
    expect(polls.some((p) => p.startsWith("ok /c/requests.json?") && p.includes("service_request_id=C-1"))).toBe(true);
    expect(polls.some((p) => p.includes(`api_key=${KEY}`))).toBe(true);
    expect(await councilUpdates()).toEqual([]);
  });

  it("a council that never answers costs one bounded request; the other council is still polled", async () => {
    mode = "slow";
    const goodBefore = polls.filter((p) => p.startsWith("good")).length;
    const started = Date.now();
    const figures = await poll();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(figures).toMatchObject({ failed: 1 });
    expect(polls.filter((p) => p.startsWith("good")).length).toBe(goodBefore + 1);
    const row = await forwarding();
    expect(row.sync_error).toMatch(/did not answer within 1 s/);
    expect(row.synced_at).not.toBeNull();
  });

  it("a huge answer is cut off at the size bound; invalid JSON and a redirect are failures, not followed", async () => {
    for (const [m, error] of [
      ["huge", /larger than/],
      ["invalid", /not JSON/],
      ["redirect", /redirected the request; not followed/],
    ] as const) {
      mode = m;
      expect(await poll(), m).toMatchObject({ failed: 1 });
      expect((await forwarding()).sync_error, m).toMatch(error);
    }
    expect(polls.some((p) => p.includes("evil"))).toBe(false);
    expect(await councilUpdates()).toEqual([]);
    expect(await status()).toBe("open");
  });

  it("wrong types are left out; a request we never sent is ignored", async () => {
    mode = "types";
    expect(await poll()).toMatchObject({ failed: 0, updates: 0 });
    mode = "stranger";
    expect(await poll()).toMatchObject({ failed: 0, updates: 0, ignored: 1 });
    expect((await forwarding()).sync_error).toMatch(/did not list this request/);
    expect(await councilUpdates()).toEqual([]);
    expect(await status()).toBe("open");
  });

  it("HTML in status_notes is plain text on our page; the status maps through the table", async () => {
    mode = "html";
    expect(await poll()).toMatchObject({ updates: 1, failed: 0 });
    expect(await status()).toBe("in_progress");
    const [update] = await councilUpdates();
    expect(update?.note).not.toMatch(/[<>]/);
    expect(update?.note).toContain("Crew booked for Tuesday");
    const page = await t.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(page.body).toContain("Update from the council");
    expect(page.body).toContain("Crew booked for Tuesday");
    expect(page.body).not.toContain("<script>alert");
    expect(page.body).not.toContain("evil.example.net");
    expect(page.body).toContain("the council's status “in progress”");
  });

  it("an unknown status records only the council's notes, and is logged without the key", async () => {
    mode = "unknown";
    expect(await poll()).toMatchObject({ updates: 1, failed: 0 });
    expect(await status()).toBe("in_progress");
    const updates = await councilUpdates();
    expect(updates.at(-1)).toEqual({ note: "Waiting for next year's budget.", event: "update", status: "in_progress" });
    // The same answer again records nothing.
    expect(await poll()).toMatchObject({ updates: 0 });
    expect(await councilUpdates()).toHaveLength(updates.length);
    expect(logged.some((l) => l.includes("awaiting_budget"))).toBe(true);
    expect(logged.some((l) => l.includes("did not answer"))).toBe(true);
    for (const line of logged) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain("api_key");
    }
    const rows = await db().selectFrom("report_forwardings").select(["sync_error", "last_error"]).execute();
    expect(JSON.stringify(rows)).not.toContain(KEY);
  });

  it("the department's own status table, set with the CLI's --statuses, maps over the default one", async () => {
    const { department_id: id } = await db()
      .selectFrom("categories")
      .select("department_id")
      .where("code", "=", "streetlight")
      .executeTakeFirstOrThrow();
    const env = {
      DATA_DIR: t.db.dataDir,
      SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
    };
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    const refused = await runCli(
      ["departments", "delivery", String(id), "--method", "open311", "--statuses", "closed=duplicate"],
      env,
      io,
    );
    expect(refused).not.toBe(0);
    expect(err.join("\n")).toMatch(/"duplicate" is not one of/);
    const code = await runCli(
      [
        "departments",
        "delivery",
        String(id),
        "--method",
        "open311",
        "--statuses",
        "Closed=closed, awaiting budget=ignore",
      ],
      env,
      io,
    );
    expect(code, err.join("\n")).toBe(0);
    const stored = await db()
      .selectFrom("departments")
      .select("open311_statuses")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.open311_statuses)).toEqual({ closed: "closed", awaiting_budget: "ignore" });
    expect(() => parseStatusTable("open=nonsense")).toThrow(/not one of/);

    mode = "closed";
    expect(await poll()).toMatchObject({ updates: 1, failed: 0 });
    // "closed" is the council's "Closed" here, not the default "Fixed".
    expect(await status()).toBe("closed");
    expect((await councilUpdates()).at(-1)).toEqual({ note: "Closed.", event: "status", status: "closed" });
  });
});
