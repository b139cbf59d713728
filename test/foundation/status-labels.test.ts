import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { STATUS_LABELS } from "../../src/reports/model.js";

/**
 * The browser's map scripts cannot import server modules (.dependency-cruiser.cjs), so src/client/_map-status.ts
 * keeps its own copy of the statuses' public labels: it must say exactly what the pages say. Read as text, since
 * the client module loads Leaflet, which needs a browser.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("status labels on the maps", () => {
  it("are the reports feature's labels", () => {
    const source = readFileSync(join(ROOT, "src/client/_map-status.ts"), "utf8");
    const table = /export const STATUS_LABELS[^=]*=\s*\{([^}]*)\}/.exec(source)?.[1] ?? "";
    const client = Object.fromEntries(
      [...table.matchAll(/(\w+):\s*"([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]),
    );
    expect(client).toEqual(STATUS_LABELS);
  });
});
