import { afterEach, beforeEach, expect, it } from "vitest";
import { deviceOwnerKey } from "../../src/core/web/device-owner.js";
import { signInMailParts, tokenIn, Visitor } from "../accounts/support.js";
import { createApiKey } from "../../src/open311/keys.js";
import { describeEachDb } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";
import { trustHarness } from "./support.js";

/**
 * Issue 33, finding 8: the answer kept for a retry of a submission (Idempotency-Key) and its fingerprint go when
 * the person's data is erased, both for an account deleted by its holder and for an address erased through
 * /my-data, whichever way the report came (the app's drafts endpoint, Open311).
 */
describeEachDb("erasure removes the stored answers of the person's submissions", (dialect) => {
  let h: Awaited<ReturnType<typeof trustHarness>>;
  beforeEach(async () => {
    h = await trustHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  const rows = () =>
    h.t.db.database.db.selectFrom("idempotency_keys").select(["scope", "key", "body", "headers"]).execute();
  const mentioning = async (reference: string, key: string) =>
    (await rows()).filter((r) => r.key === key || `${r.body}${r.headers}`.includes(reference));

  /** A draft sent by the app; signed in, with the session's draft owner (issue 33 #5). */
  const draft = (cookie: string | null, key: string, email: string, owner?: string) => {
    const form = new FormData();
    for (const [k, v] of [
      ["category", "pothole"],
      ["title", "Pothole by the pond"],
      ["description", "Deep hole on the corner."],
      ["lat", "50.98650"],
      ["lng", "-2.04400"],
      ["attribute[road_or_pavement]", "road"],
      ["email", email],
      ["website", ""],
    ])
      form.append(k as string, v as string);
    return h.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: {
        "idempotency-key": `"${key}"`,
        origin: "http://civic.test",
        ...(cookie ? { cookie, "draft-owner": owner ?? "" } : {}),
      },
      payload: form,
    });
  };

  it("an account deletion removes the keys of the account's submissions", async () => {
    const holder = await signInAs(h.app, "erase.keys@example.org", "resident");
    const owner = deviceOwnerKey(h.app.civic.config.sessionSecret, holder.accountId);
    const mine = await draft(holder.cookie, "erase-account-1", holder.email, owner);
    expect(mine.statusCode, mine.body).toBe(201);
    const reference = (mine.json() as { reference: string }).reference;
    // Someone else's submission stays.
    const other = await draft(null, "erase-keep-1", "kept.neighbour@example.org");
    expect(other.statusCode).toBe(201);
    expect(await mentioning(reference, "erase-account-1")).toHaveLength(1);

    const deleted = await holder.post("/account/delete", { confirm: "yes" }, "/account/delete");
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await mentioning(reference, "erase-account-1")).toEqual([]);
    expect((await rows()).filter((r) => r.scope.includes(holder.accountId))).toEqual([]);
    expect((await rows()).map((r) => r.key)).toContain("erase-keep-1");
  });

  it("a /my-data erasure removes the keys of the address's Open311 and anonymous submissions", async () => {
    const email = "erase.visitor@example.net";
    const apiKey = (await createApiKey(h.t.db.database.db, "Client", new Date())).key;
    const posted = await h.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": '"erase-open311-1"',
        "x-api-key": apiKey,
      },
      payload: new URLSearchParams({
        service_code: "pothole",
        lat: "50.9865",
        long: "-2.044",
        description: "Pothole outside number 4.",
        "attribute[road_or_pavement]": "road",
        email,
        account_id: "client-person-17",
      }).toString(),
    });
    expect(posted.statusCode, posted.body).toBe(200);
    const viaApi = (posted.json() as { service_request_id: string }[])[0]?.service_request_id as string;
    const anonymous = await draft(null, "erase-anon-1", email);
    expect(anonymous.statusCode).toBe(201);
    const viaApp = (anonymous.json() as { reference: string }).reference;
    await h.mailTo(email); // the confirmations
    expect(await mentioning(viaApi, "erase-open311-1")).toHaveLength(1);
    expect(await mentioning(viaApp, "erase-anon-1")).toHaveLength(1);

    await new Visitor(h.app).submit("/my-data", "/my-data", { email });
    const { path, token } = signInMailParts(await h.mailTo(email));
    const visitor = new Visitor(h.app);
    const page = await visitor.get(path);
    const done = await visitor.post("/my-data/erase", { _csrf: tokenIn(page.body), token, confirm: "yes" });
    expect(done.statusCode).toBe(200);
    expect(await mentioning(viaApi, "erase-open311-1")).toEqual([]);
    expect(await mentioning(viaApp, "erase-anon-1")).toEqual([]);
    expect(JSON.stringify(await rows())).not.toContain("client-person-17");
  });
});
