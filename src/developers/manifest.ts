import type { Feature } from "../core/context.js";
import { developerRoutes } from "./routes.js";

/** /developers: the APIs and data explained. */
export const developers: Feature = {
  name: "developers",
  menu: [{ path: "/developers", label: "Developers and open data", placement: "footer", order: 70 }],
  routes: [{ plugin: developerRoutes }],
};
