import type { Feature } from "../core/context.js";
import { developerRoutes } from "./routes.js";

/** /developers: the APIs and data explained. */
export const developers: Feature = {
  name: "developers",
  menu: [{ path: "/developers", label: "Developers and open data", placement: "footer", order: 70 }],
  pages: [
    {
      path: "/developers",
      title: "Developers and open data",
      summary: "The open APIs (business directory JSON-LD, Open311), the dataset export, API keys and examples.",
      placement: "footer",
    },
  ],
  routes: [{ plugin: developerRoutes }],
};
