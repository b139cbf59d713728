import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, expect, it } from "vitest";
import { activeStrikes, moderate } from "../../src/moderation/decisions.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";
import { form } from "./support.js";

/**
 * Issue 33, finding 3: Open311's `account_id` is the submitting system's own identifier of the person (GeoReport
 * v2), never one of our accounts. An API-key holder who sends a resident's account id does not file reports under
 * that resident: they are not in the resident's "My reports" or data download, and hiding them gives the resident
 * no strike (so no suspension and no mail about content they never wrote).
 */
describeEachDb("Open311 account_id is the client's identifier, not our account", (dialect) => {
  let t: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true, env: { RATE_LIMIT_WRITE_MAX: "100", SUSPEND_AFTER_STRIKES: "1" } });
    apiKey = (await createApiKey(t.app.civic.database.db, "Some client", new Date())).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a POST naming a resident's account id files nothing under that account", async () => {
    const civic = t.app.civic;
    const db = civic.database.db;
    const resident = await signInAs(t.app, "resident.victim@example.org", "resident");
    const moderator = await signInAs(t.app, "moderator@example.org", "moderator");
    const posted = await t.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      ...form([
        ["api_key", apiKey],
        ["service_code", "pothole"],
        ["lat", "50.9865"],
        ["long", "-2.044"],
        ["description", "Abusive words the resident never wrote."],
        ["attribute[road_or_pavement]", "road"],
        ["account_id", resident.accountId],
      ]),
    });
    expect(posted.statusCode, posted.body).toBe(200);
    const [created] = posted.json() as { service_request_id: string; account_id: string | null }[];
    const reference = created?.service_request_id as string;
    // The standard's answer echoes the client's own identifier.
    expect(created?.account_id).toBe(resident.accountId);

    const mine = await resident.get("/account/reports");
    expect(mine.statusCode).toBe(200);
    expect(mine.body).not.toContain(reference);
    const download = await resident.post("/account/data/download", {}, "/account/data");
    expect(download.statusCode).toBe(200);
    const data = strFromU8(unzipSync(new Uint8Array(download.rawPayload))["data.json"] as Uint8Array);
    expect(data).not.toContain(reference);

    const actor = { accountId: moderator.accountId, role: "moderator" as const };
    await moderate(civic, { kind: "report", id: reference, action: "hide", reason: "Abusive", actor });
    expect(await activeStrikes(db, resident.accountId, civic.now())).toBe(0);
    const account = await db
      .selectFrom("accounts")
      .select("suspended_at")
      .where("id", "=", resident.accountId)
      .executeTakeFirstOrThrow();
    expect(account.suspended_at).toBeNull();
    const mail = await db
      .selectFrom("outbox")
      .select("kind")
      .where("to_address", "=", resident.email)
      .where("kind", "like", "moderation%")
      .execute();
    expect(mail).toEqual([]);
    // Not kept as one of our account ids at all.
    const row = await db
      .selectFrom("reports")
      .select(["account_id"])
      .where("reference", "=", reference)
      .executeTakeFirstOrThrow();
    expect(row.account_id).toBeNull();
  });
});
