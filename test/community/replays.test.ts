import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { signedIn } from "./support.js";

/**
 * Each public community form is accepted once per filling-in: a replayed post (a re-POST after "back", a double
 * click, a script) creates nothing new and tells the resident it was received already.
 */
describeEachDb("replayed community forms", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  /** Opens `page`, waits past the minimum fill time, and posts the same filled-in form twice. */
  async function postTwice(v: Visitor, page: string, action: string, fields: Record<string, string>) {
    const res = await v.get(page);
    const _csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)![1]!;
    h.advance(5_000);
    const first = await v.post(action, { _csrf, website: "", ...fields });
    const second = await v.post(action, { _csrf, website: "", ...fields });
    return { first, second };
  }

  const count = async (table: "ideas" | "volunteers" | "newsletter_subscribers") =>
    Number(
      (
        await h.app.civic.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const outbox = async (kind: string) =>
    (await h.app.civic.database.db.selectFrom("outbox").select("id").where("kind", "=", kind).execute()).length;

  it("an idea (signed in or not) is created once", async () => {
    const before = await count("ideas");
    const ann = await signedIn(h, "ann@example.org");
    const idea = { title: "Bulb planting on the verge", description: "Daffodils along the main road." };
    const { first, second } = await postTwice(ann, "/ideas/new", "/ideas", idea);
    expect(first.statusCode).toBe(303);
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain("Already sent");
    expect(second.body).toContain(`href="${String(first.headers.location)}"`);

    const anon = await postTwice(new Visitor(h.app), "/ideas/new", "/ideas", { ...idea, email: "dee@example.org" });
    expect(anon.first.headers.location).toBe("/ideas/sent");
    expect(anon.second.body).toContain("We received this idea already");
    expect(await count("ideas")).toBe(before + 2);
    expect(await outbox("idea-confirm")).toBe(1);
  });

  it("a volunteer sign-up is made once", async () => {
    const before = await count("volunteers");
    const { first, second } = await postTwice(new Visitor(h.app), "/volunteer", "/volunteer", {
      name: "Fay Lee",
      email: "fay@example.org",
      interests: "Gardening",
      availability: "Weekends",
    });
    expect(first.statusCode).toBe(200);
    expect(second.body).toContain("We received this sign-up already");
    expect(await count("volunteers")).toBe(before + 1);
    expect(await outbox("volunteer-confirm")).toBe(1);
  });

  it("a message to a councillor is mailed once", async () => {
    const c = await h.app.civic.database.db.selectFrom("councillors").select("id").executeTakeFirstOrThrow();
    const { first, second } = await postTwice(
      new Visitor(h.app),
      `/councillors/${c.id}`,
      `/councillors/${c.id}/contact`,
      {
        name: "Eve",
        email: "eve@example.org",
        message: "The footpath by the school floods every time it rains.",
      },
    );
    expect(first.statusCode).toBe(200);
    expect(second.body).toContain("We received this message already");
    expect(await outbox("councillor-contact")).toBe(1);
    expect(await outbox("councillor-contact-copy")).toBe(1);
  });

  it("a replayed message gets 'already sent' even once its address has used up its hourly messages", async () => {
    const c = await h.app.civic.database.db.selectFrom("councillors").select("id").executeTakeFirstOrThrow();
    const v = new Visitor(h.app);
    const fields = { name: "Eve", email: "eve@example.org", website: "" };
    const send = async (message: string) => {
      const page = await v.get(`/councillors/${c.id}`);
      const _csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
      h.advance(5_000);
      const res = await v.post(`/councillors/${c.id}/contact`, { _csrf, ...fields, message });
      return { res, _csrf };
    };
    // Five messages an hour per address: the first, four more, then the limit.
    const first = await send("The footpath by the school floods again.");
    expect(first.res.statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await send(`Message ${i} about the footpath.`)).res.statusCode).toBe(200);
    expect((await send("One message too many this hour.")).res.body).toContain("try again in an hour");
    expect(await outbox("councillor-contact")).toBe(5);
    // The very first form, sent again: it went, and that is what the resident is told.
    const replay = await v.post(`/councillors/${c.id}/contact`, {
      _csrf: first._csrf,
      ...fields,
      message: "The footpath by the school floods again.",
    });
    expect(replay.body).toContain("We received this message already");
    expect(await outbox("councillor-contact")).toBe(5);
  });

  it("a newsletter subscription request is taken once", async () => {
    const { first, second } = await postTwice(new Visitor(h.app), "/newsletter", "/newsletter", {
      email: "sub@example.org",
    });
    expect(first.statusCode).toBe(200);
    expect(second.body).toContain("We received this request already");
    expect(await count("newsletter_subscribers")).toBe(1);
    expect(await outbox("newsletter-confirm")).toBe(1);
  });
});
