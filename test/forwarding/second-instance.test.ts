import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { createApiKey } from "../../src/open311/keys.js";
import { redactReport } from "../../src/moderation/decisions.js";
import { sendDueForwardings } from "../../src/reports/forward.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";
import { deliverStreetlightsTo, freePort, postReport, Relay } from "./support.js";

/**
 * A second instance of this platform plays the council: its own database, categories and API key, listening on a
 * port behind a relay the test can stop. Reports posted to the first instance are forwarded by Open311 and must
 * arrive there exactly once, with the mapped service code, the mapped answers and photos the council can fetch.
 */
describeEachDb("forwarding to a council that runs this platform", (dialect) => {
  let council: TestApp;
  let first: TestApp;
  let relay: Relay;
  let ourKey: string;
  let councilKey: string;

  const councilReports = () =>
    council.app.civic.database.db
      .selectFrom("reports")
      .select([
        "reference",
        "category_code",
        "description",
        "media_url",
        "reporter_email",
        "attributes",
        "location_text",
      ])
      .execute();
  const forwardings = () =>
    first.app.civic.database.db.selectFrom("report_forwardings").selectAll().orderBy("id").execute();

  beforeAll(async () => {
    council = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "1000" } });
    await council.app.listen({ port: 0, host: "127.0.0.1" });
    const councilPort = (council.app.server.address() as { port: number }).port;
    councilKey = (await createApiKey(council.app.civic.database.db, "Village platform", new Date())).key;
    relay = new Relay(await freePort(), councilPort);
    await relay.start();

    const port = await freePort();
    first = await createTestApp(dialect, {
      seed: true,
      env: {
        // A public-looking name (the council refuses media URLs on IP addresses); the test reaches it on loopback.
        BASE_URL: `http://village.example.org:${port}`,
        RATE_LIMIT_WRITE_MAX: "1000",
        FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
        FORWARDING_TIMEOUT_SECONDS: "2",
      },
    });
    await first.app.listen({ port, host: "127.0.0.1" });
    ourKey = (await createApiKey(first.app.civic.database.db, "Test client", new Date())).key;
    await deliverStreetlightsTo(first.app, `http://127.0.0.1:${relay.port}/api/v2/`, councilKey);
  });
  afterAll(async () => {
    await relay?.stop();
    await first?.close();
    await council?.close();
  });

  it("stores the council's key sealed: the database does not hold it in the clear", async () => {
    const rows = await first.app.civic.database.db.selectFrom("departments").selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).toContain("open311");
    expect(dump).not.toContain(councilKey);
    expect(dump).not.toContain(councilKey.slice(-16));
  });

  it("forwards a new report once, with the mapped service code, answers, place and a photo the council can fetch", async () => {
    const before = (await councilReports()).length;
    const reference = await postReport(first.app, ourKey, "The lamp by the church flickers.");
    const [row] = (await forwardings()).slice(-1);
    expect(row).toMatchObject({ method: "open311", state: "pending", service_code: "streetlight" });
    const result = await sendDueForwardings(first.app.civic);
    expect(result, JSON.stringify((await forwardings()).slice(-1))).toEqual({ sent: 1, retry: 0, failed: 0 });
    const arrived = (await councilReports()).slice(before);
    expect(arrived).toHaveLength(1);
    const got = arrived[0];
    expect(got?.category_code).toBe("streetlight");
    expect(got?.description).toContain("The lamp by the church flickers.");
    expect(got?.description).toContain(reference);
    expect(JSON.parse(got?.attributes ?? "{}")).toMatchObject({ fault: "flickering" });
    // The reporter did not tick "the council may contact me" (Open311 posts never do): no contact details.
    expect(got?.reporter_email).toBeNull();
    // The photo URL is the first instance's public photo, reachable from outside.
    expect(got?.media_url).toMatch(/^http:\/\/village\.example\.org:\d+\/photos\/[0-9a-f]+\.jpg$/);
    const photo = await fetch((got?.media_url as string).replace("village.example.org", "127.0.0.1"));
    expect(photo.status).toBe(200);
    expect(photo.headers.get("content-type")).toContain("image/jpeg");

    const sent = (await forwardings()).slice(-1)[0];
    expect(sent).toMatchObject({ state: "sent", service_request_id: got?.reference, locked_until: null });
    // The public page and the staff view say where it went: department, method, council reference, when.
    const page = await first.app.inject({ method: "GET", url: `/reports/${reference}` });
    expect(page.body).toContain(`Street Lighting, by Open311, council reference ${got?.reference}`);
    const { staffHtml } = await import("./staff-view.js");
    const staffView = await staffHtml(first, reference);
    expect(staffView).toContain(`by Open311, council reference ${got?.reference}: sent`);
    // Nothing is due any more; sending again sends nothing.
    expect(await sendDueForwardings(first.app.civic)).toEqual({ sent: 0, retry: 0, failed: 0 });
  });

  it("sends the reporter's name and email only when they agreed to be contacted", async () => {
    const reference = await postReport(first.app, ourKey, "Second lamp out, contact me.");
    await first.app.civic.database.db
      .updateTable("reports")
      .set({ share_contact: 1 })
      .where("reference", "=", reference)
      .execute();
    await sendDueForwardings(first.app.civic);
    const got = (await councilReports()).find((r) => r.description.includes(reference));
    expect(got?.reporter_email).toBe("resident@example.org");
  });

  it("a council that is down delays the forwarding; it arrives once when the council is back", async () => {
    await relay.stop();
    const reference = await postReport(first.app, ourKey, "Lamp post leaning after the storm.");
    expect(await sendDueForwardings(first.app.civic)).toMatchObject({ sent: 0, retry: 1 });
    const waiting = (await forwardings()).slice(-1)[0];
    expect(waiting).toMatchObject({ state: "pending", attempts: 1, locked_until: null });
    expect(waiting?.last_error).toMatch(/could not reach 127\.0\.0\.1/);
    expect(waiting?.last_error).not.toContain("api_key");
    // Not due yet (backoff): nothing is sent until the next attempt's time.
    expect(await sendDueForwardings(first.app.civic)).toEqual({ sent: 0, retry: 0, failed: 0 });
    await relay.start();
    await first.app.civic.database.db
      .updateTable("report_forwardings")
      .set({ next_attempt_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", waiting?.id as number)
      .execute();
    expect(await sendDueForwardings(first.app.civic)).toMatchObject({ sent: 1 });
    const copies = (await councilReports()).filter((r) => r.description.includes(reference));
    expect(copies).toHaveLength(1);
  });

  it("forwarding again reaches the council as the same request (Idempotency-Key): still one copy", async () => {
    const reference = await postReport(first.app, ourKey, "Lamp on all day.");
    await sendDueForwardings(first.app.civic);
    const id = (
      await first.app.civic.database.db
        .selectFrom("reports")
        .select("id")
        .where("reference", "=", reference)
        .executeTakeFirstOrThrow()
    ).id;
    const { forwardReport } = await import("../../src/reports/forward.js");
    await first.app.civic.database.db.transaction().execute((tx) => forwardReport(first.app.civic, tx, id, new Date()));
    expect(await sendDueForwardings(first.app.civic)).toMatchObject({ sent: 1 });
    const rows = (await forwardings()).filter((f) => f.report_id === id);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.service_request_id).toBe(rows[1]?.service_request_id);
    expect((await councilReports()).filter((r) => r.description.includes(reference))).toHaveLength(1);
  });

  it("forwarding again after the report was edited reaches the council as a new request, not a refused repeat", async () => {
    const reference = await postReport(first.app, ourKey, "Lamp buzzing loudly.");
    await sendDueForwardings(first.app.civic);
    const db = first.app.civic.database.db;
    const { id } = await db
      .selectFrom("reports")
      .select("id")
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    const moderator = await signInAs(first.app, "moderator@example.org", "moderator");
    await redactReport(first.app.civic, {
      reference,
      title: "Lamp buzzing",
      description: "The lamp by the school buzzes loudly at night.",
      reason: "Clearer words",
      actor: { accountId: moderator.accountId, role: "moderator" },
    });
    const { forwardReport } = await import("../../src/reports/forward.js");
    await db.transaction().execute((tx) => forwardReport(first.app.civic, tx, id, new Date()));
    const result = await sendDueForwardings(first.app.civic);
    const rows = (await forwardings()).filter((f) => f.report_id === id);
    expect(result, JSON.stringify(rows)).toMatchObject({ sent: 1, failed: 0 });
    expect(rows.map((r) => r.state)).toEqual(["sent", "sent"]);
    expect(rows[1]?.service_request_id).not.toBe(rows[0]?.service_request_id);
    const copies = (await councilReports()).filter((r) => r.description.includes(reference));
    expect(copies.map((c) => c.description.includes("buzzes loudly at night"))).toEqual([false, true]);
  });

  it("two sending instances racing send each report once", async () => {
    const second = await buildApp(first.config, { logger: false, database: first.db.reopen() });
    await second.ready();
    try {
      const references: string[] = [];
      for (let i = 0; i < 4; i++) references.push(await postReport(first.app, ourKey, `Race lamp ${i} is dark.`));
      const results = await Promise.all([sendDueForwardings(first.app.civic), sendDueForwardings(second.civic)]);
      expect(results.reduce((n, r) => n + r.sent, 0)).toBe(4);
      const reports = await councilReports();
      for (const reference of references) {
        expect(reports.filter((r) => r.description.includes(reference))).toHaveLength(1);
      }
      const rows = await forwardings();
      expect(rows.filter((r) => r.state !== "sent")).toEqual([]);
      // Duplicates at the council: none.
      const descriptions = reports.map((r) => r.description);
      expect(new Set(descriptions).size).toBe(descriptions.length);
    } finally {
      await second.close();
    }
  });
});
