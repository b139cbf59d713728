#!/usr/bin/env node
// The `civic` command: runs the built CLI (npm ci and npm start build it; `npm run build` does too).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli.js");
if (!existsSync(cli)) {
  console.error('civic: the platform is not built yet. Run "npm run build" (npm ci does it too) and try again.');
  process.exit(1);
}
await import(pathToFileURL(cli).href);
