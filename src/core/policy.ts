/**
 * The one place that answers "may this person do this to that". Pure functions over the viewer's role and id and
 * the subject's owner, role and state: no database access here; callers load the subject and ask. Every staff
 * guard, staff action, owner action and automatic sanction (strikes, automatic suspension) goes through `can`.
 * The authorisation matrix test (test/trust/authorisation-matrix.test.ts) holds `can` and every route to a table of
 * expected answers written out from the documentation, not computed here; test/trust/rules-in-one-home.test.ts fails if a file elsewhere compares roles itself. Code that needs to know
 * which roles may do something (a query selecting staff accounts) asks `rolesWhoMay`, and code that needs a staff
 * viewer's role narrowed asks `mayEnterStaff`: both are `can` underneath.
 */
import { AppError } from "./http/errors.js";

export type Role = "resident" | "moderator" | "admin";
/** The roles that may enter the staff console. */
export type StaffRole = Exclude<Role, "resident">;

const RANK: Record<Role, number> = { resident: 0, moderator: 1, admin: 2 };
const ROLES = Object.keys(RANK) as Role[];

/** Who asks. null is an anonymous visitor; a suspended account is treated as anonymous (its sessions are ended). */
export interface PolicyViewer {
  accountId: string | null;
  role: Role;
  suspended?: boolean;
}

/** The platform as a whole (staff pages, site-wide settings, public forms). */
export interface PlatformSubject {
  type: "platform";
}
/** An account acted on (suspension, role change, strikes). */
export interface AccountSubject {
  type: "account";
  id: string;
  role: Role;
}
/** A piece of content (report, update, photo, idea): its author's account and role, and its public state. */
export interface ItemSubject {
  type: "item";
  authorId: string | null;
  authorRole: Role | null;
  state: "public" | "hidden" | "removed";
}
export type Subject = PlatformSubject | AccountSubject | ItemSubject;

export const PLATFORM: PlatformSubject = { type: "platform" };

/**
 * What can be asked, with the subject each action takes:
 * - platform: `submit` (public forms: anyone), `signed-in` (anything that needs an account), `staff.enter` (the
 *   staff console, triage, hidden content), `staff.administer` (roles, API keys, catalogue, ban list, volunteer
 *   export, restoring a report's text, overruling a strike).
 * - item: `item.moderate` (hide, unhide, dismiss, edit; a removed item only by an admin), `item.support` (a
 *   signed-in person supports a public idea).
 * - account: `account.strike` and `account.auto-suspend` (a decision counts against the author), `account.suspend`,
 *   `account.unsuspend`, `account.change-role`.
 */
export const ACTIONS = [
  "submit",
  "signed-in",
  "staff.enter",
  "staff.administer",
  "item.moderate",
  "item.support",
  "account.strike",
  "account.auto-suspend",
  "account.suspend",
  "account.unsuspend",
  "account.change-role",
] as const;
export type Action = (typeof ACTIONS)[number];

/** The viewer as far as authority goes: a suspended account has none beyond an anonymous visitor's. */
function effective(viewer: PolicyViewer | null): PolicyViewer | null {
  return viewer && !viewer.suspended ? viewer : null;
}

const atLeast = (v: PolicyViewer | null, role: Role) => v !== null && RANK[v.role] >= RANK[role];
/** A staff account is acted on (struck, suspended) only by a strictly higher role; a resident by any staff. */
const outranks = (v: PolicyViewer, target: Role) => target === "resident" || RANK[v.role] > RANK[target];

/** Whether `viewer` may do `action` to `subject`. */
export function can(viewer: PolicyViewer | null, action: Action, subject: Subject = PLATFORM): boolean {
  const v = effective(viewer);
  switch (action) {
    case "submit":
      return true;
    case "signed-in":
      return v !== null && v.accountId !== null;
    case "staff.enter":
      return atLeast(v, "moderator");
    case "staff.administer":
      return atLeast(v, "admin");
    case "item.moderate":
      if (subject.type !== "item" || !atLeast(v, "moderator")) return false;
      return subject.state !== "removed" || atLeast(v, "admin");
    case "item.support":
      return v !== null && v.accountId !== null && subject.type === "item" && subject.state === "public";
    case "account.strike":
    case "account.auto-suspend":
      // Strikes are the moderators' sanction on residents; against staff, only a higher role's decision counts.
      if (subject.type !== "account" || !v || !atLeast(v, "moderator")) return false;
      return v.accountId !== subject.id && outranks(v, subject.role);
    case "account.suspend":
      if (subject.type !== "account" || !v || !atLeast(v, "moderator") || v.accountId === subject.id) return false;
      return subject.role === "resident" || atLeast(v, "admin");
    case "account.unsuspend":
      if (subject.type !== "account" || !atLeast(v, "moderator")) return false;
      return subject.role === "resident" || atLeast(v, "admin");
    case "account.change-role":
      return subject.type === "account" && atLeast(v, "admin");
  }
}

const REFUSALS: Partial<Record<Action, string>> = {
  "staff.administer": "This is for administrators only. Ask an administrator if you need it.",
  "account.suspend": "Only an admin can suspend a staff account, and nobody can suspend their own account.",
  "account.unsuspend": "Only an admin can lift the suspension of a staff account.",
  "account.change-role": "Only an admin can change roles.",
  "item.moderate": "This item was removed; only an admin can change that.",
};

/** Throws a 403 (AppError "forbidden") unless `can` allows it; `message` overrides the default explanation. */
export function authorise(viewer: PolicyViewer | null, action: Action, subject: Subject = PLATFORM, message?: string) {
  if (can(viewer, action, subject)) return;
  throw new AppError("forbidden", message ?? REFUSALS[action] ?? "You may not do this.");
}

/** The actions whose subject is the platform as a whole. */
export type PlatformAction = "submit" | "signed-in" | "staff.enter" | "staff.administer";

/**
 * The roles whose active (not suspended) accounts may do `action`, in rank order: for queries that select such
 * accounts (the staff list, who can be assigned a report, the admins the last-admin rule counts), which cannot
 * call `can` row by row. `rolesWhoMay("staff.enter")` is the staff roles, `rolesWhoMay("staff.administer")` the
 * admins'.
 */
export function rolesWhoMay(action: PlatformAction): Role[] {
  // Any account of the role: the platform actions depend on its role and on its being an account, not on which.
  return ROLES.filter((role) => can({ accountId: "any account", role }, action));
}

/**
 * `can(viewer, "staff.enter")` as a type guard: whoever may enter the staff console holds a staff role, so the
 * viewer's role is narrowed to one (for an actor record that names it) without comparing roles anywhere else.
 */
export function mayEnterStaff<V extends PolicyViewer>(viewer: V | null): viewer is V & { role: StaffRole } {
  return can(viewer, "staff.enter");
}

/** Whether `role` is at least `minimum` (for lists such as the staff navigation, decided by the same ranks). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}
