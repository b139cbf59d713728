import type { AccountsHarness } from "../accounts/support.js";
import { Visitor } from "../accounts/support.js";

/** A signed-in visitor whose account has the given role. */
export async function signedIn(
  h: AccountsHarness,
  email: string,
  role: "resident" | "moderator" | "admin" = "resident",
) {
  const v = new Visitor(h.app);
  await v.signIn(h, email);
  if (role !== "resident") {
    await h.app.civic.database.db.updateTable("accounts").set({ role }).where("email", "=", email).execute();
  }
  return v;
}

/** Opens `page` and posts `action` with the page's form token, after the minimum fill time has passed. */
export async function submitSlowly(
  h: AccountsHarness,
  v: Visitor,
  page: string,
  action: string,
  fields: Record<string, string>,
) {
  const res = await v.get(page);
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  if (!token)
    throw new Error(
      `no form token on ${page} (${res.statusCode}): ${res.body.slice(res.body.indexOf("<main"), res.body.indexOf("<main") + 600)}`,
    );
  h.advance(5_000);
  return v.post(action, { _csrf: token, ...fields });
}

/** The first link under `path` in a mail's text. */
export function linkIn(text: string, path: string): string {
  const m = new RegExp(`https?://[^\\s/]+(${path.replace(/\//g, "\\/")}[^\\s]+)`).exec(text);
  if (!m?.[1]) throw new Error(`no ${path} link in:\n${text}`);
  return m[1];
}
