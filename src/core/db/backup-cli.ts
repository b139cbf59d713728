import { existsSync } from "node:fs";
import { resolve } from "node:path";
import SQLite from "better-sqlite3";
import { type Command, UsageError } from "../cli.js";
import { sqlitePath } from "./database.js";

/**
 * `civic backup FILE`: a consistent copy of the SQLite database while the server keeps running, through SQLite's
 * online backup API (better-sqlite3's backup()), which copies pages in steps and restarts when a writer changes
 * them. PostgreSQL is backed up with its own tools (pg_dump, or the host's snapshots).
 */
export const backupCommands: Record<string, Command> = {
  backup: {
    summary: "Copy the SQLite database to FILE while the server runs (online backup)",
    usage: "civic backup FILE",
    async run({ config, args, out, err }) {
      const [target, ...extra] = args;
      if (!target || extra.length > 0) throw new UsageError("Give one file to write the backup to.");
      if (config.databaseUrl) {
        err("DATABASE_URL is PostgreSQL: back it up with pg_dump (see deploy/README.md).");
        return 1;
      }
      const file = resolve(target);
      if (existsSync(file)) {
        err(`${file} exists already; the backup is never written over an existing file.`);
        return 1;
      }
      const source = new SQLite(sqlitePath(config.dataDir), { readonly: true, fileMustExist: true });
      try {
        const { totalPages } = await source.backup(file);
        out(`Backed up ${totalPages} pages to ${file}.`);
      } finally {
        source.close();
      }
      return 0;
    },
  },
};
