import type { Feature } from "../core/context.js";
import { STAFF_PAGES as ADMINISTRATION_PAGES } from "./administration-routes.js";
import { adminRoutes, STAFF_PAGES } from "./routes.js";

/** The staff console's own pages: the staff home, the audit log, staff roles and Open311 API keys. */
export const admin: Feature = {
  name: "admin",
  staff: { pages: [...STAFF_PAGES, ...ADMINISTRATION_PAGES], routes: adminRoutes },
};
