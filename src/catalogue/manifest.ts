import type { Feature } from "../core/context.js";
import { guardedScope } from "../core/staff/guard.js";
import { departmentCommands } from "./cli.js";
import { catalogueRoutes, STAFF_PAGES } from "./routes.js";

/** Report categories, their extra questions and the council departments reports are forwarded to (admins). */
export const catalogue: Feature = {
  name: "catalogue",
  staff: { pages: STAFF_PAGES, routes: (scope) => guardedScope(scope, "admin", catalogueRoutes) },
  commands: departmentCommands,
};
