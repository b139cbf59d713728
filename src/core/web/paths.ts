import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

/** The project root, from `src/…` under tests and from `dist/…` when built. */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));
/** Built browser assets (CSS, scripts, vendored Leaflet), produced by `npm run build`. */
export const publicDir = join(projectRoot, "dist", "public");
