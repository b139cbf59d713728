import { describe, expect, it } from "vitest";
import { can, mayEnterStaff, type PlatformAction, type PolicyViewer, type Role, rolesWhoMay } from "./policy.js";

const ROLES: Role[] = ["resident", "moderator", "admin"];
const PLATFORM_ACTIONS: PlatformAction[] = ["submit", "signed-in", "staff.enter", "staff.administer"];
const account = (role: Role, suspended = false): PolicyViewer => ({ accountId: `${role}-1`, role, suspended });

describe("rolesWhoMay: the roles a query may select for a platform action", () => {
  it("names moderators and admins for the staff console, admins alone for administration", () => {
    expect(rolesWhoMay("staff.enter")).toEqual(["moderator", "admin"]);
    expect(rolesWhoMay("staff.administer")).toEqual(["admin"]);
  });

  it("names every role for what any account may do", () => {
    expect(rolesWhoMay("submit")).toEqual(ROLES);
    expect(rolesWhoMay("signed-in")).toEqual(ROLES);
  });

  it("agrees with can() for an active account of each role", () => {
    for (const action of PLATFORM_ACTIONS) {
      for (const role of ROLES) expect(rolesWhoMay(action).includes(role)).toBe(can(account(role), action));
    }
  });

  it("says nothing about suspended accounts: those have no authority whatever their role", () => {
    for (const role of rolesWhoMay("staff.enter")) {
      expect(can(account(role, true), "staff.enter")).toBe(false);
      expect(can(account(role, true), "signed-in")).toBe(false);
    }
  });
});

describe("mayEnterStaff: the staff console's action as a type guard", () => {
  it("lets active moderators and admins in, with their role narrowed to a staff role", () => {
    for (const role of ["moderator", "admin"] as const) {
      const viewer = account(role);
      expect(mayEnterStaff(viewer)).toBe(true);
      if (mayEnterStaff(viewer)) {
        const staffRole: "moderator" | "admin" = viewer.role;
        expect(staffRole).toBe(role);
      }
    }
  });

  it("keeps out residents, suspended staff and anonymous visitors, as can() does", () => {
    expect(mayEnterStaff(account("resident"))).toBe(false);
    expect(mayEnterStaff(account("moderator", true))).toBe(false);
    expect(mayEnterStaff(account("admin", true))).toBe(false);
    expect(mayEnterStaff(null)).toBe(false);
    for (const role of ROLES) {
      for (const suspended of [false, true]) {
        expect(mayEnterStaff(account(role, suspended))).toBe(can(account(role, suspended), "staff.enter"));
      }
    }
  });
});
