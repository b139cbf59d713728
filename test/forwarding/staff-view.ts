import { signInAs } from "../helpers/staff.js";
import type { TestApp } from "../helpers/app.js";

/** The staff view of a report as a moderator sees it. */
export async function staffHtml(t: TestApp, reference: string): Promise<string> {
  const staff = await signInAs(t.app, "moderator@example.org", "moderator");
  const res = await staff.get(`/admin/reports/${reference}`);
  if (res.statusCode !== 200) throw new Error(`staff view: ${res.statusCode}`);
  return res.body;
}
