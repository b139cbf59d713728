import { parseArgs } from "node:util";
import type { Dialect } from "../../src/core/db/database.js";
import { openDataset } from "./dataset.js";

const { values: opts } = parseArgs({
  options: {
    db: { type: "string", default: "both" },
    size: { type: "string", default: "1000000" },
    "generate-only": { type: "boolean", default: false },
  },
});
const DIALECTS: Dialect[] = opts.db === "both" ? ["sqlite", "postgres"] : [opts.db as Dialect];
export async function main(): Promise<void> {
  for (const dialect of DIALECTS) {
    const ds = await openDataset(dialect, Number(opts.size));
    await ds.close();
  }
}
