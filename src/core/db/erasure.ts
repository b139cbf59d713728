import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { DB } from "./schema.js";

/**
 * After personal data is erased, makes sure its bytes leave the database files, not only its rows (issue 27, #15).
 *
 * SQLite: every connection runs with `secure_delete = ON` (core/db/database.ts, checkpointer.ts), so a deleted row's
 * bytes are overwritten with zeros in the page that held it, and freed pages are zeroed. The WAL still holds the
 * pages as they were before the erasure until it is reset: a `wal_checkpoint(TRUNCATE)` copies every page into the
 * database file and empties the WAL.
 *
 * PostgreSQL: a deleted or updated row stays in its table's pages as a dead tuple until VACUUM removes it, so the
 * tables the erasure changed are vacuumed (outside any transaction; VACUUM cannot run in one).
 *
 * Never throws: the erasure itself has committed by then; a failure is reported as a process warning (which names
 * no person) and the next VACUUM or checkpoint finishes the job.
 */
export async function reclaimErasedBytes(db: Kysely<DB>, tables: Iterable<string>): Promise<void> {
  try {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      for (const table of new Set(tables)) await sql`vacuum ${sql.table(table)}`.execute(db);
    } else {
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    }
  } catch (error) {
    process.emitWarning(`Reclaiming erased bytes failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
