import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDb } from "../helpers/app.js";
import { accountsHarness, type AccountsHarness, makeReport, tokenIn, Visitor } from "./support.js";

/**
 * Issue 33: an address becomes one of an account's addresses only when its owner proves it for that account, in a
 * flow that says so: "Add another address of yours" on /account mails that address a link naming the account that
 * asked; the address is added when the link's button is pressed, never by opening the page.
 */
describeEachDb("adding another address to an account", (dialect) => {
  let h: AccountsHarness;
  beforeAll(async () => {
    h = await accountsHarness(dialect, { RATE_LIMIT_WRITE_MAX: "1000" });
  });
  afterAll(async () => h?.close());

  const added = async (accountEmail: string) => {
    const db = h.app.civic.database.db;
    return db
      .selectFrom("account_addresses")
      .innerJoin("accounts", "accounts.id", "account_addresses.account_id")
      .select(["account_addresses.email", "account_addresses.reason"])
      .where("accounts.email", "=", accountEmail)
      .execute();
  };

  async function askToAdd(v: Visitor, address: string): Promise<{ text: string; path: string; token: string }> {
    const asked = await v.submit("/account", "/account/addresses", { email: address });
    expect(asked.statusCode).toBe(303);
    const text = (await h.mailTo(address)).parsed.text ?? "";
    const m = /https?:\/\/\S+(\/account\/addresses\/confirm\/([A-Za-z0-9_-]{43}))/.exec(text);
    if (!m) throw new Error(`no link in:\n${text}`);
    return { text, path: m[1]!, token: m[2]! };
  }

  it("mails the address naming the account; opening the page adds nothing; the button adds it, once", async () => {
    const report = await makeReport(h.app, { email: "heron.allotment@example.net", name: "Heron" });
    const owner = new Visitor(h.app);
    await owner.signIn(h, "heron@example.org");

    const mail = await askToAdd(owner, "heron.allotment@example.net");
    expect(mail.text).toContain(
      `heron@example.org asked to add this address to their account on the ${h.app.civic.site.villageName} Community Platform. If this wasn't you, ignore this message.`,
    );

    // Opened, by a mail scanner or by the owner: it says what the button does, and changes nothing.
    const reader = new Visitor(h.app);
    const page = await reader.get(mail.path);
    expect(page.statusCode).toBe(200);
    expect(String(page.headers["cache-control"])).toContain("no-store");
    expect(page.headers["referrer-policy"]).toBe("same-origin");
    expect(page.body).toContain("Add heron.allotment@example.net to the account heron@example.org?");
    await owner.get(mail.path);
    expect(await added("heron@example.org")).toEqual([]);
    expect((await owner.get("/account/reports")).body).not.toContain(report.reference);

    const pressed = await reader.post("/account/addresses/confirm", { _csrf: tokenIn(page.body), token: mail.token });
    expect(pressed.statusCode).toBe(200);
    expect(await added("heron@example.org")).toEqual([{ email: "heron.allotment@example.net", reason: "added" }]);
    expect((await owner.get("/account/reports")).body).toContain(report.reference);

    // Once only.
    expect((await reader.get(mail.path)).statusCode).toBe(410);
    const again = await reader.post("/account/addresses/confirm", { _csrf: tokenIn(page.body), token: mail.token });
    expect(again.statusCode).toBe(410);
  });

  it("another account's own address cannot be added, and the page says so", async () => {
    const other = new Visitor(h.app);
    await other.signIn(h, "stoat@example.org");
    const asker = new Visitor(h.app);
    await asker.signIn(h, "weasel@example.org");
    const mail = await askToAdd(asker, "stoat@example.org");
    const page = await other.get(mail.path);
    expect(page.body).toContain("is another account's own address");
    const pressed = await other.post("/account/addresses/confirm", { _csrf: tokenIn(page.body), token: mail.token });
    expect(pressed.statusCode).toBe(409);
    expect(await added("weasel@example.org")).toEqual([]);
  });

  it("refuses the account's own address and a malformed one on the form", async () => {
    const v = new Visitor(h.app);
    await v.signIn(h, "vole@example.org");
    expect((await v.submit("/account", "/account/addresses", { email: "vole@example.org" })).statusCode).toBe(400);
    expect((await v.submit("/account", "/account/addresses", { email: "not an address" })).statusCode).toBe(400);
  });
});
