import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addBan } from "../../src/moderation/ban-list.js";
import { newReference } from "../../src/reports/reference.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { reportFormFields } from "../helpers/reports.js";

/**
 * Issue 33 #8: `/report/sent/{reference}` is the reporter's confirmation right after sending. To anyone else it
 * answers for a hidden or withheld (banned sender's) report exactly as for a reference that does not exist, so it
 * cannot be used to learn that such a report exists. The sender still sees their confirmation (a ban is not
 * announced).
 */
describeEachDb("the report-sent page", (dialect) => {
  let t: TestApp;
  let offset = 0;
  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      env: { RATE_LIMIT_WRITE_MAX: "200" },
    });
    const civic = t.app.civic;
    await addBan(civic.database.db, { pattern: "held.example", reason: "Spam domain", by: null }, civic.now());
  });
  afterAll(async () => t?.close());

  const db = () => t.app.civic.database.db;

  /** Sends the web report form as a visitor would; returns the answer (a 303 to the sent page). */
  async function send(fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const page = await t.app.inject("/report?category=pothole");
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    if (!token) throw new Error(`no form token (${page.statusCode})`);
    offset += 10_000;
    const form = new FormData();
    for (const [k, v] of Object.entries({ _csrf: token, ...reportFormFields(fields) })) form.append(k, v);
    return t.app.inject({ method: "POST", url: "/report", payload: form });
  }

  async function referenceOf(title: string): Promise<string> {
    return (await db().selectFrom("reports").select("reference").where("title", "=", title).executeTakeFirstOrThrow())
      .reference;
  }

  /** The answer for `/report/sent/{reference}` asked cold (no link from the form), with the reference masked. */
  async function cold(reference: string) {
    const res = await t.app.inject(`/report/sent/${reference}`);
    return { status: res.statusCode, body: res.body.replaceAll(reference, "REFERENCE") };
  }

  it("a hidden and a withheld report's sent page looks exactly like a nonexistent one's", async () => {
    const nowhere = await cold(newReference());
    expect(nowhere.status).toBe(404);

    const posted = await send({ title: "Hidden later", email: "someone@example.org" });
    expect(posted.statusCode, posted.body).toBe(303);
    const hidden = await referenceOf("Hidden later");
    await db().updateTable("reports").set({ visibility: "hidden" }).where("reference", "=", hidden).execute();
    expect(await cold(hidden)).toEqual(nowhere);

    const banned = await send({ title: "Withheld at once", email: "someone@held.example" });
    expect(banned.statusCode, banned.body).toBe(303);
    const withheld = await referenceOf("Withheld at once");
    const row = await db()
      .selectFrom("reports")
      .select(["withheld"])
      .where("reference", "=", withheld)
      .executeTakeFirst();
    expect(row?.withheld).toBe(1);
    expect(await cold(withheld)).toEqual(nowhere);
  });

  it("the sender still gets the confirmation, withheld or not, by the page the form sends them to", async () => {
    for (const [title, email] of [
      ["Sent and public", "one@example.org"],
      ["Sent and withheld", "two@held.example"],
    ]) {
      const posted = await send({ title: title!, email: email! });
      expect(posted.statusCode, posted.body).toBe(303);
      const reference = await referenceOf(title!);
      const location = String(posted.headers.location);
      expect(location.startsWith(`/report/sent/${reference}`), location).toBe(true);
      const page = await t.app.inject(location);
      expect(page.statusCode, title).toBe(200);
      expect(page.body).toContain("your report has been sent");
      expect(page.body).toContain(reference);
    }
    // A public report's page says nothing that is not public anyway.
    expect((await t.app.inject(`/report/sent/${await referenceOf("Sent and public")}`)).statusCode).toBe(200);
  });
});
