import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, describeEachDb, type TestApp } from "../helpers/app.js";
import { signInAs } from "../helpers/staff.js";
import { multipart } from "../open311/support.js";

/**
 * Issue 33 #5: an offline draft is sent only in the session that saved it. Its `Draft-Owner` (the page's
 * `device-owner` when it was saved) must be the sending session's: a draft saved by resident A and sent while B is
 * signed in on the same browser is refused (409 `draft_owner_mismatch`, before the Idempotency-Key is claimed) and
 * filed under nobody's account; so is an anonymous draft sent while signed in, and A's draft sent after sign-out.
 * Each page says whose it is without naming anyone: an opaque key, never the address or the account id.
 */
describeEachDb("a draft is sent only in the session that saved it", (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
  });
  afterAll(async () => t?.close());

  const post = (title: string, key: string, headers: Record<string, string>) => {
    const body = multipart([
      ["category", "pothole"],
      ["title", title],
      ["description", "Deep hole on the corner."],
      ["lat", "50.98650"],
      ["lng", "-2.04400"],
      ["attribute[road_or_pavement]", "road"],
      ["email", "draft.owner@example.org"],
      ["website", ""],
    ]);
    return t.app.inject({
      method: "POST",
      url: "/api/app/reports",
      headers: { ...body.headers, "idempotency-key": `"${key}"`, origin: "http://civic.test", ...headers },
      payload: body.payload,
    });
  };
  const owners = (title: string) =>
    t.app.civic.database.db.selectFrom("reports").select("account_id").where("title", "=", title).execute();
  const ownerKey = async (cookie?: string) => {
    const page = await t.app.inject({ url: "/report/drafts", headers: cookie ? { cookie } : {} });
    const key = /<meta name="device-owner" content="([^"]+)"/.exec(page.body)?.[1];
    if (!key) throw new Error("no device-owner on the page");
    return key;
  };

  it("each page names its session's owner by an opaque key: the same for an account, never its id or address", async () => {
    const a = await signInAs(t.app, "owner.key.a@example.org", "resident");
    const b = await signInAs(t.app, "owner.key.b@example.org", "resident");
    const keyA = await ownerKey(a.cookie);
    expect(keyA).toMatch(/^a\.[A-Za-z0-9_-]{22}$/);
    expect(keyA).not.toContain(a.accountId);
    expect(await ownerKey(a.cookie)).toBe(keyA);
    expect(await ownerKey(b.cookie)).not.toBe(keyA);
    expect(await ownerKey()).toBe("anonymous");
  });

  it("refuses another account's draft, an anonymous draft while signed in, and an account's draft after sign-out", async () => {
    const a = await signInAs(t.app, "owner.a@example.org", "resident");
    const b = await signInAs(t.app, "owner.b@example.org", "resident");
    const keyA = await ownerKey(a.cookie);

    const cases: [string, Record<string, string>][] = [
      ["A's draft sent while B is signed in", { cookie: b.cookie, "draft-owner": keyA }],
      ["An anonymous draft sent while B is signed in", { cookie: b.cookie, "draft-owner": "anonymous" }],
      ["A draft without an owner sent while B is signed in", { cookie: b.cookie }],
      ["A's draft sent while nobody is signed in", { "draft-owner": keyA }],
    ];
    for (const [n, [title, headers]] of cases.entries()) {
      const res = await post(title, `owner-${n}`, headers);
      expect(res.statusCode, title).toBe(409);
      expect(res.headers["content-type"]).toContain("application/problem+json");
      expect(res.json(), title).toMatchObject({ code: "draft_owner_mismatch" });
      expect(await owners(title), title).toEqual([]);
    }

    // Its own session sends it: A's under A's account, the anonymous one under none; the refused keys were released.
    const own = await post("A's draft sent while B is signed in", "owner-0", {
      cookie: a.cookie,
      "draft-owner": keyA,
    });
    expect(own.statusCode, own.body).toBe(201);
    expect(await owners("A's draft sent while B is signed in")).toEqual([{ account_id: a.accountId }]);
    const anonymous = await post("An anonymous draft", "owner-anonymous", { "draft-owner": "anonymous" });
    expect(anonymous.statusCode).toBe(201);
    expect(await owners("An anonymous draft")).toEqual([{ account_id: null }]);
  });

  it("a replay of a stored answer is refused too in another session (checked before the Idempotency-Key)", async () => {
    const a = await signInAs(t.app, "owner.replay.a@example.org", "resident");
    const b = await signInAs(t.app, "owner.replay.b@example.org", "resident");
    const keyA = await ownerKey(a.cookie);
    const first = await post("Replayed draft", "owner-replay", { cookie: a.cookie, "draft-owner": keyA });
    expect(first.statusCode).toBe(201);
    const replay = await post("Replayed draft", "owner-replay", { cookie: b.cookie, "draft-owner": keyA });
    expect(replay.statusCode).toBe(409);
    expect(replay.json()).toMatchObject({ code: "draft_owner_mismatch" });
  });
});
