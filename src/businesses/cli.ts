import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Command, UsageError } from "../core/cli.js";
import { buildSnapshot } from "./dataset.js";
import { detectFormat, formatProblem, parseImport } from "./import.js";
import { applyBusinesses } from "./repository.js";

const MAX_PROBLEMS_SHOWN = 500;

/** `civic businesses import FILE [--prune]` and `civic businesses export [--output FILE]`. */
export const businessCommands: Record<string, Command> = {
  "businesses import": {
    summary: "Import businesses from canonical JSON or CSV (all or nothing)",
    usage: "civic businesses import FILE [--prune] [--format json|csv]",
    async run({ database, args, out, err }) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { prune: { type: "boolean", default: false }, format: { type: "string" } },
      });
      const file = positionals[0];
      if (!file || positionals.length > 1) throw new UsageError("Give one file to import.");
      if (values.format !== undefined && values.format !== "json" && values.format !== "csv") {
        throw new UsageError("--format must be json or csv.");
      }
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        err(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
        return 1;
      }
      const format = values.format ?? detectFormat(file, text);
      const parsed = parseImport(text, format, {
        onProgress: (done, total) => out(`Checked ${done} of ${total} records…`),
      });
      if (parsed.problems.length > 0) {
        for (const p of parsed.problems.slice(0, MAX_PROBLEMS_SHOWN)) err(formatProblem(p));
        if (parsed.problems.length > MAX_PROBLEMS_SHOWN) {
          err(`… and ${parsed.problems.length - MAX_PROBLEMS_SHOWN} more problems.`);
        }
        const bad = new Set(parsed.problems.map((p) => p.record)).size;
        err(
          `${file}: ${parsed.problems.length} problem${parsed.problems.length === 1 ? "" : "s"} in ${bad} of ${parsed.total} records. Nothing was imported.`,
        );
        return 1;
      }
      if (parsed.records.length === 0 && values.prune) {
        err(`${file} has no businesses; refusing to --prune the whole directory.`);
        return 1;
      }
      const summary = await applyBusinesses(database.db, parsed.records, {
        prune: values.prune ?? false,
        at: new Date().toISOString(),
        onProgress: (done, total) => out(`Applied ${done} of ${total} records…`),
      });
      out(
        `Imported ${file} (${format.toUpperCase()}, ${parsed.total} records): ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged.`,
      );
      return 0;
    },
  },
  "businesses export": {
    summary: "Write the canonical business dataset (JSON-LD)",
    usage: "civic businesses export [--output FILE]",
    async run({ config, database, args, out }) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { output: { type: "string", short: "o" } },
      });
      if (positionals.length > 0) throw new UsageError("export takes no file argument; use --output FILE.");
      const snap = await buildSnapshot(database.db, config.baseUrl);
      if (values.output) {
        // Byte for byte what /data/businesses-canonical.json serves; its sha-256 is the dataset version.
        writeFileSync(values.output, snap.canonical.identity);
        out(`Wrote ${snap.entries.length} businesses to ${values.output} (version ${snap.version}).`);
      } else {
        out(snap.canonical.identity.toString("utf8"));
      }
      return 0;
    },
  },
};
