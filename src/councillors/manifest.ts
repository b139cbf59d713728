import type { Feature } from "../core/context.js";
import { councillorRoutes } from "./routes.js";
import { councillorPages } from "./sitemap.js";

/** /councillors and the contact form. */
export const councillors: Feature = {
  name: "councillors",
  menu: [{ path: "/councillors", label: "Councillors", placement: "nav", order: 80 }],
  pages: [
    {
      path: "/councillors",
      title: "Your councillors",
      summary: "Who represents the village and how to reach them.",
      placement: "nav",
    },
  ],
  routes: [{ plugin: councillorRoutes }],
  sitemap: [councillorPages],
};
