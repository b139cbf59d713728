import { afterEach, beforeEach, expect, it } from "vitest";
import { accountsHarness, type AccountsHarness, Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { submitSlowly } from "./support.js";

describeEachDb("councillor contact", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  it("sends the message to the councillor, with the reply address only when ticked, and a copy to the resident", async () => {
    const c = await h.app.civic.database.db.selectFrom("councillors").selectAll().executeTakeFirstOrThrow();
    const v = new Visitor(h.app);
    const page = `/councillors/${c.id}`;
    expect((await v.get(page)).body).toContain(c.ward);
    const bad = await submitSlowly(h, v, page, `${page}/contact`, {
      name: "Eve",
      email: "eve@example.org",
      message: "short",
      website: "",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="Eve"');
    expect(bad.body).toContain(">short</textarea>");

    const quiet = await submitSlowly(h, v, page, `${page}/contact`, {
      name: "Eve",
      email: "eve@example.org",
      message: "The footpath by the school floods every time it rains.",
      website: "",
    });
    expect(quiet.statusCode).toBe(200);
    const toCouncillor = await h.mailTo(c.email);
    expect(toCouncillor.parsed.text).toContain("The footpath by the school floods");
    expect(toCouncillor.raw).not.toContain("eve@example.org");
    await h.smtp.waitFor(2);
    const copy = h.smtp.received.find((m) => m.to.includes("eve@example.org"))!;
    // Issue 27 #6: nobody has confirmed the resident's address, so the "copy" says the message went, without its text.
    expect(copy.parsed.text).toContain("was sent through");
    expect(copy.parsed.text).not.toContain("The footpath by the school floods");

    await submitSlowly(h, v, page, `${page}/contact`, {
      name: "Eve",
      email: "eve@example.org",
      message: "Please reply about the footpath.",
      share: "yes",
      website: "",
    });
    const shared = await h.mailTo(c.email);
    expect(shared.parsed.text).toContain("reply to: eve@example.org");

    const bot = await submitSlowly(h, v, page, `${page}/contact`, {
      name: "B",
      email: "b@example.org",
      message: "Buy cheap things now!!",
      website: "spam",
    });
    expect(bot.statusCode).toBe(400);
  });
});
