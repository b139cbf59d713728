import { strFromU8, unzipSync } from "fflate";
import { sourceContext } from "../../src/accounts/account-service.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  erasePersonalData,
  exportPersonalData,
  listConsents,
  type SourceContext,
} from "../../src/accounts/personal-data.js";
import { accountsHarness, type AccountsHarness, type Visitor } from "../accounts/support.js";
import { describeEachDb } from "../helpers/app.js";
import { linkIn, signedIn, submitSlowly } from "./support.js";

/** The community features' part of the data export, the consents page and erasure (accounts issue). */
describeEachDb("community data in the export and erasure", (dialect) => {
  let h: AccountsHarness;
  beforeEach(async () => {
    h = await accountsHarness(dialect);
  });
  afterEach(async () => {
    await h.close();
  });

  async function confirmByMail(v: Visitor, email: string, path: string) {
    const link = linkIn((await h.mailTo(email)).parsed.text ?? "", path);
    const token = /name="_csrf" value="([^"]+)"/.exec((await v.get(link)).body)![1]!;
    await v.post(link, { _csrf: token });
  }

  it("ideas, supports, volunteer sign-ups and the newsletter consent are exported, listed and erased", async () => {
    const email = "kim@example.org";
    const kim = await signedIn(h, email);
    const idea = await submitSlowly(h, kim, "/ideas/new", "/ideas", {
      title: "Bat boxes in the churchyard",
      description: "Homes for the pipistrelles.",
      website: "",
    });
    const ideaPath = String(idea.headers.location);
    await submitSlowly(h, kim, ideaPath, `${ideaPath}/support`, { support: "yes" });
    await submitSlowly(h, kim, "/volunteer", "/volunteer", {
      name: "Kim Lee",
      email,
      interests: "Bats",
      availability: "Evenings",
      website: "",
    });
    await confirmByMail(kim, email, "/volunteer/confirm/");
    await submitSlowly(h, kim, "/newsletter", "/newsletter", { email, website: "" });
    await confirmByMail(kim, email, "/newsletter/confirm/");

    const db = h.app.civic.database.db;
    const account = await db.selectFrom("accounts").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    const ctx: SourceContext = sourceContext(h.app.civic);
    const subject = { accountId: account.id, email };

    const zip = unzipSync(await exportPersonalData(ctx, subject));
    const data = JSON.parse(strFromU8(zip["data.json"]!)) as Record<string, unknown>;
    const text = JSON.stringify(data);
    expect(text).toContain("Bat boxes in the churchyard");
    expect(JSON.stringify(data.volunteering)).toContain("Kim Lee");
    expect(JSON.stringify(data.newsletter)).toContain("confirmed");
    const consents = (await listConsents(ctx, subject)).map((c) => c.label).join("\n");
    expect(consents).toContain("Volunteering");
    expect(consents.toLowerCase()).toContain("newsletter");

    await erasePersonalData(ctx, subject, { removePublicContent: false });
    expect(await db.selectFrom("volunteers").select("id").where("email", "=", email).execute()).toEqual([]);
    expect(await db.selectFrom("newsletter_subscribers").select("id").where("email", "=", email).execute()).toEqual([]);
    expect(
      await db.selectFrom("idea_supports").select("idea_id").where("account_id", "=", account.id).execute(),
    ).toEqual([]);
    const kept = await db
      .selectFrom("ideas")
      .select(["account_id", "email"])
      .where("id", "=", Number(ideaPath.split("/")[2]))
      .executeTakeFirstOrThrow();
    expect(kept).toEqual({ account_id: null, email: null });
  });
});
