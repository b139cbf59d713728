import { strFromU8, unzipSync } from "fflate";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiKey } from "../../src/open311/keys.js";
import { type AccountsHarness, tokenIn, Visitor } from "../accounts/support.js";
import { linkIn, submitSlowly } from "../community/support.js";
import { describeEachDb } from "../helpers/app.js";
import { foundInSqliteFiles, foundInTables, lastVacuum, trustHarness } from "./support.js";

/**
 * Invariant "Personal-data completeness" (issue 27): one person uses every feature that takes personal data, then
 * downloads their data, then erases it. The download lists all of it; afterwards no table (every text column of every
 * table, found through the schema), no queued mail, no log line and (SQLite) no raw byte of the database files holds
 * any of their addresses, names, phone number or message text.
 */
const PRIMARY = "quintus.vantongeren@example.org";
const SECOND = "q.hedgelayer@example.net";
const FIRST_NAME = "Quintus";
const LAST_NAME = "Vantongeren";
const NAME = `${FIRST_NAME} ${LAST_NAME}`;
const PHONE = "07700 900461";
const MESSAGE = "The culvert behind Larkspur Row overflows every night it rains.";
const FLAG_NOTE = "This shows the Zephyrine family's house number.";
const INTERESTS = "Hedgelaying and dry-stone walling";
const AVAILABILITY = "Thursday evenings after seven";
/** What must be nowhere after the erasure. */
const SECRETS = [PRIMARY, SECOND, FIRST_NAME, LAST_NAME, PHONE, MESSAGE, FLAG_NOTE, INTERESTS, AVAILABILITY];

/** Public contributions: they stay public (unlinked) after the erasure unless the person asks, as promised. */
const WEB_TITLE = "Sunken drain cover by the bus shelter";
const DRAFT_TITLE = "Broken kerb stone by the post box";
const OPEN311_TEXT = "Streetlight flickering outside the chapel.";
const IDEA_TITLE = "Wildflower verges along the lane";

describeEachDb("personal-data completeness", (dialect) => {
  let h: AccountsHarness & { logs: string[] };
  beforeEach(async () => {
    h = await trustHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("one person uses every feature: the download lists it all, and after erasure nothing of them is left anywhere", async () => {
    const db = () => h.app.civic.database.db;
    const v = new Visitor(h.app);
    await v.signIn(h, PRIMARY);
    const named = await v.submit("/account", "/account/name", { name: NAME });
    expect(named.statusCode).toBe(303);

    // The web report form, signed in.
    const form = await v.get("/report?category=pothole");
    h.advance(5_000);
    const web = await v.post("/report", {
      _csrf: tokenIn(form.body),
      category: "pothole",
      title: WEB_TITLE,
      description: "The cover has dropped about 5 cm.",
      lat: "50.98650",
      lng: "-2.04400",
      "attribute[road_or_pavement]": "road",
      email: PRIMARY,
      name: NAME,
      website: "",
      action: "send",
    });
    expect(web.statusCode).toBe(303);
    const webRef = String(web.headers.location).split("?")[0]!.split("/").pop()!;

    // The drafts endpoint (the offline app's queue), anonymous, from another client address.
    const draftForm = new FormData();
    for (const [k, val] of [
      ["category", "pothole"],
      ["title", DRAFT_TITLE],
      ["description", "Loose and rocking when stepped on."],
      ["lat", "50.98660"],
      ["lng", "-2.04410"],
      ["attribute[road_or_pavement]", "pavement"],
      ["email", PRIMARY],
      ["name", NAME],
      ["website", ""],
    ]) {
      draftForm.append(k!, val!);
    }
    const draft = await h.app.inject({
      method: "POST",
      url: "/api/app/reports",
      remoteAddress: "192.0.2.21",
      headers: {
        "idempotency-key": '"completeness-draft"',
        origin: "http://civic.test",
        "sec-fetch-site": "same-origin",
      },
      payload: draftForm,
    });
    expect(draft.statusCode).toBe(201);
    const draftRef = (draft.json() as { reference: string }).reference;

    // Open311 with an email, a name and a phone number, from a third client address.
    const apiKey = (await createApiKey(db(), "Completeness test client", new Date())).key;
    const open311 = await h.app.inject({
      method: "POST",
      url: "/api/v2/requests.json",
      remoteAddress: "192.0.2.22",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        api_key: apiKey,
        service_code: "pothole",
        lat: "50.9865",
        long: "-2.044",
        description: OPEN311_TEXT,
        "attribute[road_or_pavement]": "road",
        email: PRIMARY,
        first_name: FIRST_NAME,
        last_name: LAST_NAME,
        phone: PHONE,
      }).toString(),
    });
    expect(open311.statusCode).toBe(200);
    const open311Ref = (open311.json() as { service_request_id: string }[])[0]!.service_request_id;

    // An idea, and support for it.
    const idea = await submitSlowly(h, v, "/ideas/new", "/ideas", {
      title: IDEA_TITLE,
      description: "Sow native wildflowers instead of mowing.",
      website: "",
    });
    expect(idea.statusCode).toBe(303);
    const ideaPath = String(idea.headers.location);
    expect((await submitSlowly(h, v, ideaPath, `${ideaPath}/support`, { support: "yes" })).statusCode).toBe(303);

    // A volunteer sign-up made while signed in, a second address typed: it is filed under the account's own (issue 33).
    const volunteer = await submitSlowly(h, v, "/volunteer", "/volunteer", {
      name: NAME,
      email: SECOND,
      phone: PHONE,
      interests: INTERESTS,
      availability: AVAILABILITY,
      website: "",
    });
    expect(volunteer.statusCode).toBe(200);

    // The newsletter, confirmed, an hour later: one mailbox gets at most 3 confirmations an hour (core/mail/policy.ts).
    h.advance(60 * 60_000);
    expect((await submitSlowly(h, v, "/newsletter", "/newsletter", { email: PRIMARY, website: "" })).statusCode).toBe(
      200,
    );
    const confirm = linkIn((await h.mailTo(PRIMARY)).parsed.text ?? "", "/newsletter/confirm/");
    expect((await v.post(confirm, { _csrf: tokenIn((await v.get(confirm)).body) })).statusCode).toBeLessThan(400);

    // A message to a councillor, address not shared with them.
    const councillor = await db().selectFrom("councillors").select("id").orderBy("id").executeTakeFirstOrThrow();
    const contact = await submitSlowly(h, v, `/councillors/${councillor.id}`, `/councillors/${councillor.id}/contact`, {
      name: NAME,
      email: PRIMARY,
      message: MESSAGE,
      website: "",
    });
    expect(contact.statusCode).toBe(200);

    // Following someone else's report, and flagging it.
    const other = await db()
      .selectFrom("reports")
      .select("reference")
      .where("visibility", "=", "public")
      .where("reference", "not in", [webRef, draftRef, open311Ref])
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const followPath = `/reports/${other.reference}/follow`;
    expect((await submitSlowly(h, v, followPath, followPath, { email: PRIMARY, website: "" })).statusCode).toBe(200);
    // "I have seen this too", signed in.
    const seenPage = `/reports/${other.reference}`;
    expect((await submitSlowly(h, v, seenPage, `${seenPage}/seen`, { website: "" })).statusCode).toBe(200);
    // An alert for new reports near a place (signed in: under the account's address, on at once).
    const alert = await submitSlowly(h, v, "/alerts", "/alerts", {
      scope: "near",
      place: "War memorial",
      radius: "500",
      frequency: "daily",
      website: "",
    });
    expect(alert.statusCode).toBe(200);
    // An update on someone else's report, signed in (issue 36): its author is the account and its address.
    const otherPath = `/reports/${other.reference}`;
    const update = { "update-note": "Seen it too, still there.", website: "" };
    expect((await submitSlowly(h, v, otherPath, `${otherPath}/update`, update)).statusCode).toBe(303);
    const flagPath = `/report-this/report/${other.reference}`;
    const flag = await submitSlowly(h, v, flagPath, flagPath, { reason: "personal", note: FLAG_NOTE });
    expect(flag.statusCode).toBeLessThan(400);

    // Some of the mail is delivered, some still queued (the councillor's message and its copy among them).
    await h.mailTo(PRIMARY);

    // The download lists all of it.
    const download = await v.submit("/account/data", "/account/data/download", {});
    expect(download.statusCode).toBe(200);
    const exported = strFromU8(unzipSync(new Uint8Array(download.rawPayload))["data.json"]!);
    expect(exported).not.toContain(SECOND);
    for (const expected of [
      PRIMARY,
      NAME,
      FIRST_NAME,
      LAST_NAME,
      PHONE,
      MESSAGE,
      FLAG_NOTE,
      INTERESTS,
      AVAILABILITY,
      webRef,
      draftRef,
      open311Ref,
      IDEA_TITLE,
      other.reference,
      '"supports": [\n',
    ]) {
      expect(exported, `the download should contain ${JSON.stringify(expected)}`).toContain(expected);
    }
    const data = JSON.parse(exported) as {
      ideas: { supports: unknown[] };
      newsletter: { status: string } | null;
      volunteering: { email: string }[];
      reportFollowing: { report: string }[];
      reportAlerts: { email: string; area: string }[];
      reportUpdatesWritten: { published: { report: string; email: string }[] };
      reportSeen: { report: string; signedIn: boolean }[];
    };
    expect(data.ideas.supports).toHaveLength(1);
    expect(data.newsletter?.status).toBe("confirmed");
    expect(data.volunteering.map((s) => s.email)).toEqual([PRIMARY]);
    expect(data.reportFollowing.map((f) => f.report)).toEqual([other.reference]);
    expect(data.reportUpdatesWritten.published).toEqual([
      expect.objectContaining({ report: other.reference, email: PRIMARY }),
    ]);
    expect(data.reportSeen).toEqual([expect.objectContaining({ report: other.reference, signedIn: true })]);
    expect(data.reportAlerts).toEqual([
      expect.objectContaining({ email: PRIMARY, area: "Within 500 m of War memorial" }),
    ]);

    // The erasure.
    const page = await v.get("/account/delete");
    const erased = await v.post("/account/delete", { _csrf: tokenIn(page.body), confirm: "yes" });
    expect(erased.statusCode).toBe(200);

    expect(await foundInTables(h, SECRETS)).toEqual([]);
    expect(await db().selectFrom("report_seen").selectAll().execute()).toEqual([]);
    expect(await db().selectFrom("outbox").select("id").where("kind", "like", "councillor%").execute()).toEqual([]);
    const logged = h.logs.join("").toLowerCase();
    expect(SECRETS.filter((s) => logged.includes(s.toLowerCase()))).toEqual([]);
    expect(h.logs.length).toBeGreaterThan(10);
    // Public contributions stay public, without the person.
    const kept = await db()
      .selectFrom("reports")
      .select(["reference", "reporter_email", "account_id"])
      .where("reference", "in", [webRef, draftRef, open311Ref])
      .execute();
    expect(kept.map((r) => [r.reporter_email, r.account_id])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);

    if (dialect === "postgres") {
      for (const table of ["outbox", "volunteers", "reports", "accounts", "newsletter_subscribers"]) {
        expect(await lastVacuum(h, table), `${table} vacuumed`).not.toBeNull();
      }
    } else {
      // Closed and opened again, as after a restart: no byte of the files holds any of it.
      await h.app.close();
      await h.t.db.database.close();
      await h.t.db.reopen().close();
      expect(foundInSqliteFiles(h.t.db.dataDir, SECRETS)).toEqual([]);
    }
  }, 120_000);
});
