import { afterAll, beforeAll, expect, it } from "vitest";
import { ACTIONS, type Action, can, type PolicyViewer, type Role, type Subject } from "../../src/core/policy.js";
import { proposeIdea } from "../../src/ideas/service.js";
import { createApiKey } from "../../src/open311/keys.js";
import { submitReport } from "../../src/reports/submit.js";
import { createTestApp, describeEachDb, formToken, type TestApp } from "../helpers/app.js";
import { reportSubmission } from "../helpers/reports.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/**
 * The authorisation matrix over every state-changing route (issue 27, "Invariants"). The routes come from the app
 * itself, so a POST/PUT/PATCH/DELETE route added later without an entry here fails the first test. Each entry names
 * the policy action the route performs and what it acts on; each cell (actor × subject) is sent through the public
 * interface and must be refused exactly when the written table WHO_MAY below says no: refused is 401, 403 or a 303
 * to /sign-in, allowed is anything else below 500 (a 400 for an empty form has passed the policy). The table is
 * written out from docs/staff-console.md "Access", docs/staff-console.md "One policy" and the doc comments of
 * src/core/policy.ts, not computed from `can()`, so a wrong row in the policy fails here; `can()` itself is checked
 * against the same table. The staff console's pages (GET) are covered by test/staff/authorisation.test.ts.
 */

type ActorName = "anonymous" | "resident" | "suspended" | "moderator" | "admin";
type SubjectName = "own" | "another resident's" | "a moderator's" | "an admin's";
type Target = "account" | "report" | "idea";

interface Entry {
  action: Action;
  /** What the request names: an account, a report or an idea of the subject's owner. Default: the platform. */
  on?: Target;
  /** Form fields for the concrete subject (beyond the form token). */
  fields?: (s: Concrete) => Record<string, string>;
  /** The route ends the actor's session or account: each cell gets a fresh actor with the same role. */
  fresh?: true;
}

/** A subject made real: its owner's account and role, and the report and idea made for it. */
interface Concrete {
  accountId: string;
  email: string;
  role: Role;
  reference: string;
  ideaId: string;
}

const reason = { reason: "Authorisation matrix" };
/** The routes that hide an item through moderation's decision (and so may strike its author). */
const DECIDES = ["POST /admin/moderation/decide", "POST /admin/reports/:reference/moderate"];
const MATRIX: Record<string, Entry> = {
  // Public forms, sign-in and the links in mails: anyone, signed in or not.
  "POST /report": { action: "submit" },
  "POST /api/app/reports": { action: "submit" },
  "POST /api/v2/requests.:format": { action: "submit" },
  "POST /reports/:reference/follow": { action: "submit", on: "report" },
  "POST /reports/updates/confirm/:token": { action: "submit" },
  "POST /reports/:reference/seen": { action: "submit", on: "report" },
  "POST /reports/seen/confirm/:token": { action: "submit" },
  "POST /reports/updates/unsubscribe/:token": { action: "submit" },
  // Updates from residents (issue 36): the form on a report, and the emailed link's button.
  "POST /reports/:reference/update": {
    action: "submit",
    on: "report",
    fields: () => ({ "update-note": "Seen it too." }),
  },
  "POST /reports/updates/publish/:token": { action: "submit" },
  "POST /alerts": { action: "submit" },
  "POST /alerts/confirm/:token": { action: "submit" },
  "POST /alerts/unsubscribe/:token": { action: "submit" },
  "POST /reports/fixed/:answer/:token": { action: "submit" },
  "POST /report-this/:kind/:id": { action: "submit", on: "report", fields: () => ({ reason: "spam" }) },
  "POST /account/email/confirm": { action: "submit" },
  "POST /account/email/undo": { action: "submit" },
  "POST /account/addresses/confirm": { action: "submit" },
  "POST /councillors/:id/contact": { action: "submit" },
  "POST /sign-in/email": { action: "submit" },
  "POST /sign-in/code": { action: "submit" },
  "POST /sign-in/link": { action: "submit" },
  "POST /sign-in/password": { action: "submit" },
  "POST /sign-in/passkey/options": { action: "submit" },
  "POST /sign-in/passkey": { action: "submit" },
  "POST /sign-out": { action: "submit", fresh: true },
  "POST /my-data": { action: "submit" },
  "POST /my-data/download": { action: "submit" },
  "POST /my-data/withdraw": { action: "submit" },
  "POST /my-data/erase": { action: "submit" },
  "POST /newsletter": { action: "submit" },
  "POST /newsletter/confirm/:token": { action: "submit" },
  "POST /newsletter/unsubscribe/:token": { action: "submit" },
  "POST /ideas": { action: "submit" },
  "POST /ideas/confirm/:token": { action: "submit" },
  "POST /volunteer": { action: "submit" },
  "POST /volunteer/confirm/:token": { action: "submit" },
  "POST /volunteer/withdraw/:token": { action: "submit" },
  // A signed-in person's own account (the session names it).
  "POST /account/name": { action: "signed-in" },
  "POST /account/email": { action: "signed-in" },
  "POST /account/addresses": { action: "signed-in" },
  "POST /account/password": { action: "signed-in" },
  "POST /account/password/remove": { action: "signed-in" },
  "POST /account/sessions/end": { action: "signed-in", fields: () => ({ id: "0" }) },
  "POST /account/sessions/end-all": { action: "signed-in", fresh: true },
  "POST /account/consents/withdraw": { action: "signed-in" },
  "POST /account/passkeys/options": { action: "signed-in" },
  "POST /account/passkeys": { action: "signed-in" },
  "POST /account/passkeys/delete": { action: "signed-in" },
  "POST /account/data/download": { action: "signed-in" },
  "POST /account/delete": { action: "signed-in", fresh: true },
  // Signed-in people's actions on content.
  "POST /ideas/:id/support": { action: "item.support", on: "idea", fields: () => ({ support: "yes" }) },
  // The staff console: triage and community pages for moderators and admins.
  "POST /admin/reports/:reference/status": { action: "staff.enter", on: "report" },
  "POST /admin/reports/:reference/notes": { action: "staff.enter", on: "report" },
  "POST /admin/reports/:reference/category": { action: "staff.enter", on: "report" },
  "POST /admin/reports/:reference/forward": { action: "staff.enter", on: "report" },
  "POST /admin/reports/:reference/duplicate": { action: "staff.enter", on: "report" },
  "POST /admin/reports/:reference/assign": { action: "staff.enter", on: "report" },
  "POST /admin/projects": { action: "staff.enter" },
  "POST /admin/projects/:id": { action: "staff.enter" },
  "POST /admin/projects/:id/updates": { action: "staff.enter" },
  "POST /admin/newsletter": { action: "staff.enter" },
  "POST /admin/newsletter/:id": { action: "staff.enter" },
  "POST /admin/ideas/:id": { action: "staff.enter", on: "idea" },
  // Moderation: decisions on content, and sanctions on accounts.
  "POST /admin/moderation/decide": {
    action: "item.moderate",
    on: "report",
    fields: (s) => ({ kind: "report", id: s.reference, action: "hide", ...reason }),
  },
  // The same decisions from a report's staff view (issue 36).
  "POST /admin/reports/:reference/moderate": {
    action: "item.moderate",
    on: "report",
    fields: () => ({ target: "report", moderation_action: "hide", moderation_reason: reason.reason }),
  },
  "POST /admin/reports/:reference/redact": {
    action: "item.moderate",
    on: "report",
    fields: () => ({
      redact_title: "Edited title",
      redact_description: "Edited description.",
      redact_reason: reason.reason,
    }),
  },
  "POST /admin/moderation/reports/:reference/edit": {
    action: "item.moderate",
    on: "report",
    fields: () => ({ title: "Edited title", description: "Edited description.", ...reason }),
  },
  "POST /admin/moderation/reports/:reference/restore": {
    action: "staff.administer",
    on: "report",
    fields: () => reason,
  },
  "POST /admin/moderation/account/suspend": {
    action: "account.suspend",
    on: "account",
    fields: (s) => ({ account: s.accountId, ...reason }),
  },
  "POST /admin/moderation/account/unsuspend": {
    action: "account.unsuspend",
    on: "account",
    fields: (s) => ({ account: s.accountId, ...reason }),
  },
  "POST /admin/moderation/strikes/overrule": { action: "staff.administer", fields: () => ({ strike: "0", ...reason }) },
  // Administration: admins only.
  "POST /admin/staff": {
    action: "account.change-role",
    on: "account",
    fields: (s) => ({ email: s.email, role: s.role }),
  },
  "POST /admin/api-keys": { action: "staff.administer" },
  "POST /admin/api-keys/:id/revoke": { action: "staff.administer" },
  "POST /admin/ban-list": { action: "staff.administer" },
  "POST /admin/ban-list/remove": { action: "staff.administer" },
  "POST /admin/categories/new": { action: "staff.administer" },
  "POST /admin/categories/:code": { action: "staff.administer" },
  "POST /admin/categories/:code/retire": { action: "staff.administer" },
  "POST /admin/categories/:code/unretire": { action: "staff.administer" },
  "POST /admin/categories/:code/questions": { action: "staff.administer" },
  "POST /admin/categories/:code/questions/:question": { action: "staff.administer" },
  "POST /admin/categories/:code/questions/:question/move": { action: "staff.administer" },
  "POST /admin/categories/:code/questions/:question/remove": { action: "staff.administer" },
  "POST /admin/departments": { action: "staff.administer" },
  "POST /admin/departments/:id": { action: "staff.administer" },
  "POST /admin/departments/:id/delete": { action: "staff.administer" },
  "POST /admin/departments/:id/delivery": { action: "staff.administer" },
  "POST /admin/departments/:id/check": { action: "staff.administer" },
  "POST /admin/response-templates": { action: "staff.administer" },
  "POST /admin/response-templates/:id": { action: "staff.administer" },
  "POST /admin/response-templates/:id/delete": { action: "staff.administer" },
};

const ACTORS: ActorName[] = ["anonymous", "resident", "suspended", "moderator", "admin"];
const SUBJECTS: SubjectName[] = ["own", "another resident's", "a moderator's", "an admin's"];
const ROLE_OF: Record<Exclude<ActorName, "anonymous">, Role> = {
  resident: "resident",
  suspended: "resident",
  moderator: "moderator",
  admin: "admin",
};

/**
 * Who may do what, written out. Y: allowed, N: refused, _: no such cell (an anonymous visitor owns nothing).
 * - Public forms, sign-in and the links in mails (`submit`): anyone, a suspended account included (it is treated as
 *   an anonymous visitor).
 * - Anything that needs an account (`signed-in`): signed-in people whose account is not suspended.
 * - The staff console (`staff.enter`): moderators and admins; residents are refused. Administration
 *   (`staff.administer`: roles, API keys, catalogue, ban list, restoring a report's text, overruling a strike):
 *   admins only, moderators are refused.
 * - Moderating a public item (`item.moderate`: hide, edit): moderators and admins, whoever wrote it ("a moderator
 *   may still hide an admin's item"). Supporting a public idea (`item.support`): any signed-in, unsuspended account.
 * - Sanctions: "only admins suspend or unsuspend staff accounts; nobody suspends their own account"; a decision
 *   counts against its author (`account.strike`, `account.auto-suspend`) when the author is a resident, or a staff
 *   member of a strictly lower role than the one deciding, and never against the one deciding. Roles are changed
 *   by admins only.
 */
const Y = true;
const N = false;
const _ = null;
type Row = readonly [own: boolean | null, residents: boolean, moderators: boolean, admins: boolean];
const PLATFORM_ACTIONS = ["submit", "signed-in", "staff.enter", "staff.administer"] as const;
type PlatformAction = (typeof PLATFORM_ACTIONS)[number];
type TargetedAction = Exclude<Action, PlatformAction>;

//                 anonymous resident suspended moderator admin
const ON_PLATFORM: Record<PlatformAction, readonly [boolean, boolean, boolean, boolean, boolean]> = {
  submit: [Y, Y, Y, Y, Y],
  "signed-in": [N, Y, N, Y, Y],
  "staff.enter": [N, N, N, Y, Y],
  "staff.administer": [N, N, N, N, Y],
};

//                                 own  resident's  moderator's  admin's
const ON_SUBJECT: Record<TargetedAction, Record<ActorName, Row>> = {
  "item.moderate": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [Y, Y, Y, Y],
    admin: [Y, Y, Y, Y],
  },
  "item.support": {
    anonymous: [_, N, N, N],
    resident: [Y, Y, Y, Y],
    suspended: [N, N, N, N],
    moderator: [Y, Y, Y, Y],
    admin: [Y, Y, Y, Y],
  },
  "account.strike": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [N, Y, N, N],
    admin: [N, Y, Y, N],
  },
  "account.auto-suspend": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [N, Y, N, N],
    admin: [N, Y, Y, N],
  },
  "account.suspend": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [N, Y, N, N],
    admin: [N, Y, Y, Y],
  },
  "account.unsuspend": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [N, Y, N, N],
    admin: [Y, Y, Y, Y],
  },
  "account.change-role": {
    anonymous: [_, N, N, N],
    resident: [N, N, N, N],
    suspended: [N, N, N, N],
    moderator: [N, N, N, N],
    admin: [Y, Y, Y, Y],
  },
};

/** A removed item (not public): only an admin changes it. Anonymous, resident, suspended, moderator, admin. */
const MODERATE_REMOVED = [N, N, N, N, Y] as const;

/** What the written table says `actor` may do with `action` on `subject` (null: no subject, the platform). */
function mayDo(action: Action, actor: ActorName, subject: SubjectName | null): boolean {
  if (action in ON_PLATFORM) return ON_PLATFORM[action as PlatformAction][ACTORS.indexOf(actor)]!;
  if (subject === null) throw new Error(`${action} needs a subject`);
  const cell = ON_SUBJECT[action as TargetedAction][actor][SUBJECTS.indexOf(subject)];
  if (cell === null || cell === undefined) throw new Error(`no cell for ${actor} on ${subject}`);
  return cell;
}

it("the written table covers every action of the policy", () => {
  expect([...PLATFORM_ACTIONS, ...Object.keys(ON_SUBJECT)].sort()).toEqual([...ACTIONS].sort());
});

it("can() answers every cell of the written table", () => {
  const wrong: string[] = [];
  const roleOfSubject: Record<SubjectName, Role> = {
    own: "resident",
    "another resident's": "resident",
    "a moderator's": "moderator",
    "an admin's": "admin",
  };
  for (const actor of ACTORS) {
    const viewer: PolicyViewer | null =
      actor === "anonymous" ? null : { accountId: "actor", role: ROLE_OF[actor], suspended: actor === "suspended" };
    for (const action of PLATFORM_ACTIONS) {
      if (can(viewer, action, { type: "platform" }) !== mayDo(action, actor, null)) wrong.push(`${actor} ${action}`);
    }
    for (const action of Object.keys(ON_SUBJECT) as TargetedAction[]) {
      for (const subject of SUBJECTS) {
        if (subject === "own" && actor === "anonymous") continue;
        const own = subject === "own";
        const role = own ? (actor === "anonymous" ? "resident" : ROLE_OF[actor]) : roleOfSubject[subject];
        const id = own ? "actor" : `someone-${role}`;
        const target: Subject = action.startsWith("item.")
          ? { type: "item", authorId: id, authorRole: role, state: "public" }
          : { type: "account", id, role };
        if (can(viewer, action, target) !== mayDo(action, actor, subject)) wrong.push(`${actor} ${action} ${subject}`);
      }
    }
    const removed: Subject = { type: "item", authorId: "someone", authorRole: "resident", state: "removed" };
    if (can(viewer, "item.moderate", removed) !== MODERATE_REMOVED[ACTORS.indexOf(actor)])
      wrong.push(`${actor} item.moderate a removed item`);
  }
  expect(wrong).toEqual([]);
});

describeEachDb("authorisation matrix over every state-changing route", (dialect) => {
  let t: TestApp;
  let routes: string[];
  let apiKey: string;
  let anonymousToken: string;
  let made = 0;
  const actors = new Map<ActorName, { who: SignedIn; token: string } | null>();
  let otherResident: SignedIn;
  let moderatorMember: SignedIn;
  let adminMember: SignedIn;

  async function person(name: ActorName): Promise<{ who: SignedIn; token: string } | null> {
    if (name === "anonymous") return null;
    const who = await signInAs(t.app, `matrix-${name}-${++made}@example.org`, ROLE_OF[name]);
    const token = name === "suspended" ? anonymousToken : await who.token();
    if (name === "suspended") {
      await t.app.civic.database.db
        .updateTable("accounts")
        .set({ suspended_at: t.app.civic.now().toISOString(), suspended_reason: "Matrix" })
        .where("id", "=", who.accountId)
        .execute();
    }
    return { who, token };
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, {
      seed: true,
      env: { RATE_LIMIT_WRITE_MAX: "1000000", SUSPEND_AFTER_STRIKES: "1000" },
    });
    routes = [
      ...new Set(
        t.app.civic.routes
          .filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method))
          .map((r) => `${r.method} ${r.url}`),
      ),
    ];
    apiKey = (await createApiKey(t.app.civic.database.db, "matrix", t.app.civic.now())).key;
    anonymousToken = await formToken(t.app, "/sign-in");
    for (const name of ACTORS) actors.set(name, await person(name));
    otherResident = await signInAs(t.app, "matrix-other-resident@example.org", "resident");
    moderatorMember = await signInAs(t.app, "matrix-moderator-member@example.org", "moderator");
    adminMember = await signInAs(t.app, "matrix-admin-member@example.org", "admin");
  });
  afterAll(async () => t?.close());

  /** A report and an idea of the subject's owner, made for this cell so one cell's decision cannot affect another. */
  async function concrete(owner: SignedIn, role: Role): Promise<Concrete> {
    const civic = t.app.civic;
    const { reference } = await submitReport(civic, reportSubmission({ accountId: owner.accountId }));
    const idea = await proposeIdea(
      civic,
      {
        title: "A bench by the pond",
        description: "Somewhere to sit.",
        category: "",
        place: "",
        locationText: "",
        email: "",
      },
      owner.accountId,
      undefined,
    );
    return { accountId: owner.accountId, email: owner.email, role, reference, ideaId: String(idea.id) };
  }

  function urlOf(route: string, s: Concrete | null): string {
    const path = route.slice(route.indexOf(" ") + 1);
    return path
      .replace(":reference", s?.reference ?? "AAAA-AAAA")
      .replace(":kind/:id", `report/${s?.reference ?? "AAAA-AAAA"}`)
      .replace(":format", "json")
      .replace(/:id\b/, s?.ideaId ?? "0")
      .replace(/:[A-Za-z_]+/g, "0");
  }

  const refused = (res: { statusCode: number; headers: Record<string, unknown> }) =>
    res.statusCode === 401 ||
    res.statusCode === 403 ||
    (res.statusCode === 303 && String(res.headers.location).startsWith("/sign-in"));

  it("has an entry for every state-changing route the app registers, and none for routes that are gone", () => {
    expect(routes.filter((r) => !Object.hasOwn(MATRIX, r))).toEqual([]);
    expect(Object.keys(MATRIX).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it("answers every actor on every subject as the written table says", { timeout: 180_000 }, async () => {
    const wrong: string[] = [];
    const db = t.app.civic.database.db;
    const strikes = async (id: string) =>
      (await db.selectFrom("moderation_strikes").select("id").where("account_id", "=", id).execute()).length;
    for (const route of routes) {
      const entry = MATRIX[route];
      if (!entry) continue;
      for (const name of ACTORS) {
        const actor = entry.fresh ? await person(name) : (actors.get(name) ?? null);
        const subjects: (SubjectName | null)[] = entry.on ? SUBJECTS : [null];
        for (const subjectName of subjects) {
          if (subjectName === "own" && !actor) continue;
          let s: Concrete | null = null;
          if (subjectName === "own" && actor)
            s = await concrete(actor.who, name === "anonymous" ? "resident" : ROLE_OF[name]);
          if (subjectName === "another resident's") s = await concrete(otherResident, "resident");
          if (subjectName === "a moderator's") s = await concrete(moderatorMember, "moderator");
          if (subjectName === "an admin's") s = await concrete(adminMember, "admin");
          const expected = mayDo(entry.action, name, subjectName);
          const before = s && DECIDES.includes(route) ? await strikes(s.accountId) : 0;
          const res = await t.app.inject({
            method: "POST",
            url: urlOf(route, s),
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              origin: "http://civic.test",
              "x-api-key": apiKey,
              ...(actor ? { cookie: actor.who.cookie } : {}),
            },
            payload: new URLSearchParams({
              _csrf: actor?.token ?? anonymousToken,
              ...(s || !entry.on ? (entry.fields?.(s as Concrete) ?? {}) : {}),
            }).toString(),
          });
          const cell = `${route} as ${name}${subjectName ? ` on ${subjectName}` : ""} → ${res.statusCode}`;
          if (res.statusCode >= 500) wrong.push(`${cell}: server error`);
          else if (refused(res) === expected) wrong.push(`${cell}: the table says ${expected ? "allow" : "refuse"}`);
          if (s && expected && DECIDES.includes(route)) {
            // The decision counts against the author exactly when the table lets this actor strike them.
            const struck = (await strikes(s.accountId)) > before;
            const mayStrike = mayDo("account.strike", name, subjectName);
            if (struck !== mayStrike) wrong.push(`${cell}: strike ${struck ? "recorded" : "missing"}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
