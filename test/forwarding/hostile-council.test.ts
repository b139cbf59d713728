import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkDepartmentConnection } from "../../src/catalogue/delivery.js";
import { createApiKey } from "../../src/open311/keys.js";
import { sendDueForwardings } from "../../src/reports/forward.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { deliverStreetlightsTo, postReport } from "./support.js";

type Mode = "slow" | "huge" | "invalid" | "types" | "html" | "redirect" | "ok";

/** A fake council (node http) whose answers a test chooses: hostile ones, and one good one. */
describeEachDb("forwarding to a hostile council", (dialect) => {
  let t: TestApp;
  let fake: Server;
  let fakePort: number;
  let mode: Mode = "ok";
  let key: string;
  let departmentId: number;
  const seenKeys: string[] = [];

  beforeAll(async () => {
    fake = createServer((req, res) => {
      seenKeys.push(String(req.headers["idempotency-key"] ?? ""));
      req.resume();
      if (mode === "slow") return; // never answers
      if (mode === "huge") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`[${'{"service_request_id":"1"},'.repeat(40_000)}{}]`);
        return;
      }
      if (mode === "invalid") return void res.writeHead(200).end("{not json");
      if (mode === "types") return void res.writeHead(200).end('[{"service_request_id":{"a":1},"token":[1]}]');
      if (mode === "html") {
        return void res
          .writeHead(400, { "content-type": "application/json" })
          .end('[{"code":400,"description":"<script>alert(1)</script><b>bad</b>\\u0000 service"}]');
      }
      if (mode === "redirect") return void res.writeHead(302, { location: "http://evil.example.net/" }).end();
      if (req.url?.startsWith("/services.json") || req.url?.includes("services.json")) {
        return void res
          .writeHead(200)
          .end('[{"service_code":"streetlight","service_name":"Lights"},{"service_code":7}]');
      }
      res.writeHead(201).end('[{"service_request_id":"C-1","service_notice":"thanks"}]');
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    fakePort = (fake.address() as { port: number }).port;
    t = await createTestApp(dialect, {
      seed: true,
      env: {
        RATE_LIMIT_WRITE_MAX: "1000",
        FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
        FORWARDING_TIMEOUT_SECONDS: "1",
      },
    });
    key = (await createApiKey(t.app.civic.database.db, "Test client", new Date())).key;
    departmentId = await deliverStreetlightsTo(t.app, `http://127.0.0.1:${fakePort}/`, "council-secret-key-123");
  });
  afterAll(async () => {
    fake?.closeAllConnections();
    await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
    await t?.close();
  });

  const last = async () =>
    (await t.app.civic.database.db.selectFrom("report_forwardings").selectAll().orderBy("id", "desc").execute())[0];

  async function attempt(m: Mode) {
    mode = m;
    await postReport(t.app, key, `Lamp out (${m}).`);
    const started = Date.now();
    const figures = await sendDueForwardings(t.app.civic);
    return { figures, ms: Date.now() - started, row: await last() };
  }

  it("a council that never answers costs one bounded request; the job moves on and retries later", async () => {
    const { figures, ms, row } = await attempt("slow");
    expect(figures).toMatchObject({ retry: 1 });
    expect(ms).toBeLessThan(5000);
    expect(row).toMatchObject({ state: "pending", locked_until: null });
    expect(row?.last_error).toMatch(/did not answer within 1 s/);
  });

  it("huge, invalid and wrongly typed answers are bounded and retried, never a crash or a stuck job", async () => {
    await t.app.civic.database.db.deleteFrom("report_forwardings").execute();
    for (const [m, error] of [
      ["huge", /larger than/],
      ["invalid", /not JSON/],
      ["types", /neither a service_request_id nor a token/],
    ] as const) {
      const { row } = await attempt(m);
      expect(row?.state).toBe("pending");
      expect(row?.locked_until).toBeNull();
      expect(row?.last_error).toMatch(error);
    }
  });

  it("an error with HTML keeps its text as plain text and fails for staff to resend; a redirect is not followed", async () => {
    await t.app.civic.database.db.deleteFrom("report_forwardings").execute();
    const html = await attempt("html");
    expect(html.row?.state).toBe("failed");
    expect(html.row?.last_error).toContain("<script>alert(1)</script>");
    expect(html.row?.last_error).not.toContain("\u0000");
    const redirect = await attempt("redirect");
    expect(redirect.row?.state).toBe("failed");
    expect(redirect.row?.last_error).toMatch(/redirected the request; not followed/);
    expect(seenKeys.every((k) => k.startsWith("civic-forward-"))).toBe(true);
  });

  it("a private address is refused unless the operator allowed it", async () => {
    const strict = await createTestApp(dialect, { seed: true, env: { FORWARDING_TIMEOUT_SECONDS: "1" } });
    try {
      const id = await deliverStreetlightsTo(strict.app, `http://127.0.0.1:${fakePort}/`, "k");
      const check = await checkDepartmentConnection(strict.app.civic.database.db, strict.app.civic.config, id);
      expect(check.ok).toBe(false);
      expect(check.error).toMatch(/private or local address/);
      const named = await deliverStreetlightsTo(strict.app, `http://localhost:${fakePort}/`, "k");
      const byName = await checkDepartmentConnection(strict.app.civic.database.db, strict.app.civic.config, named);
      expect(byName.error).toMatch(/private or local address/);
    } finally {
      await strict.close();
    }
  });

  it("check connection shows what maps and what does not", async () => {
    mode = "ok";
    const check = await checkDepartmentConnection(t.app.civic.database.db, t.app.civic.config, departmentId);
    expect(check.ok).toBe(true);
    expect(check.services.map((s) => s.code)).toEqual(["streetlight", "7"]);
    expect(check.categories.find((c) => c.code === "streetlight")).toMatchObject({ offered: true });
  });

  it("the staff view shows the council's error escaped", async () => {
    const row = await t.app.civic.database.db
      .selectFrom("report_forwardings")
      .innerJoin("reports", "reports.id", "report_forwardings.report_id")
      .select(["reports.reference", "report_forwardings.last_error"])
      .where("report_forwardings.state", "=", "failed")
      .where("report_forwardings.last_error", "like", "%script%")
      .executeTakeFirstOrThrow();
    const { staffHtml } = await import("./staff-view.js");
    const html = await staffHtml(t, row.reference);
    expect(html).toMatch(/&lt;script>alert\(1\)&lt;\/script>|&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("council-secret-key-123");
  });
});
