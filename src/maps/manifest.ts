import type { Feature } from "../core/context.js";
import { tileRoutes } from "./routes.js";

/** The maps' tiles from this site: /tiles/{z}/{x}/{y}.png (the tile proxy) and /tiles/offline.json. */
export const maps: Feature = { name: "maps", routes: [{ plugin: tileRoutes }] };
