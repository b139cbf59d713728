import { readFileSync } from "node:fs";
import { join } from "node:path";
import { publicDir } from "./paths.js";

/** Maps a logical asset name ("site.css", "report-map.js") to its content-hashed public URL. */
export interface AssetManifest {
  url(name: string): string;
}

/** Reads the manifest written by scripts/build.mjs. Fails fast with a hint when the build has not run. */
export function loadAssetManifest(dir: string = publicDir): AssetManifest {
  let entries: Record<string, string>;
  try {
    entries = JSON.parse(readFileSync(join(dir, "assets", "manifest.json"), "utf8")) as Record<string, string>;
  } catch {
    throw new Error(`Built assets are missing in ${dir}: run "npm run build" first.`);
  }
  return {
    url(name) {
      const url = entries[name];
      if (!url) throw new Error(`Unknown asset "${name}": is it an entry in scripts/build.mjs?`);
      return url;
    },
  };
}

/**
 * The built assets that scripts/build.mjs also writes compressed (`<file>.br`, `<file>.gz`, whatever their size):
 * text ones. Images (PNG) and source maps (read by developer tools only) are served as they are. Keep the two lists
 * alike.
 */
export const PRECOMPRESSED_EXTENSIONS = [".js", ".css", ".json", ".webmanifest", ".svg", ".txt", ".xml", ".html"];

/** True for an asset served from a precompressed file when the client accepts one (so its answer varies on it). */
export function isPrecompressedAsset(path: string): boolean {
  return PRECOMPRESSED_EXTENSIONS.some((ext) => path.endsWith(ext));
}
