import type { Feature } from "../core/context.js";
import { volunteeringData } from "./personal-data.js";
import { volunteerRoutes } from "./routes.js";
import { STAFF_PAGES, volunteerStaffRoutes } from "./staff.js";

/** Volunteer sign-ups (double opt-in), listed for staff. */
export const volunteers: Feature = {
  name: "volunteers",
  menu: [{ path: "/volunteer", label: "Volunteer", placement: "nav", order: 50 }],
  pages: [
    {
      path: "/volunteer",
      title: "Volunteer",
      summary: "Sign up to volunteer, in general or for a project's role.",
      placement: "nav",
    },
  ],
  routes: [{ plugin: volunteerRoutes }],
  staff: { pages: STAFF_PAGES, routes: volunteerStaffRoutes },
  personalData: [volunteeringData],
};
