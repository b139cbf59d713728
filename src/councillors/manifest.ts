import type { Feature } from "../core/context.js";
import { councillorRoutes } from "./routes.js";
import { councillorPages } from "./sitemap.js";

/** /councillors and the contact form. */
export const councillors: Feature = {
  name: "councillors",
  routes: [{ plugin: councillorRoutes }],
  sitemap: [councillorPages],
};
