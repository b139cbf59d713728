import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from "kysely";

/** Migrations see the database untyped: they describe tables, they do not use them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations describe tables, untyped by design
export type MigrationDb = Kysely<any>;

export function isPostgres(db: MigrationDb): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-incrementing integer primary key on both dialects. */
export function idColumn(db: MigrationDb) {
  return isPostgres(db)
    ? (col: ColumnDefinitionBuilder) => col.primaryKey().generatedByDefaultAsIdentity()
    : (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement();
}

/** The column type for UTC timestamps: timestamptz on PostgreSQL, ISO 8601 text on SQLite. */
export function timestampType(db: MigrationDb) {
  return isPostgres(db) ? sql`timestamptz` : sql`text`;
}
