import { sql } from "kysely";
import { idColumn, isPostgres, type MigrationDb, timestampType } from "./helpers.js";

/**
 * Category administration: council departments as their own table (categories point at one and keep a copy of its
 * name and address for the readers that forward and present reports), the questions a category no longer asks (so
 * earlier answers keep their label), and the catalogue's version: a one-row counter that triggers bump on every
 * change to categories or departments, however it is made, so every process sees a change at its next request.
 */
export async function up(db: MigrationDb): Promise<void> {
  const ts = timestampType(db);
  await db.schema
    .createTable("departments")
    .addColumn("id", "integer", idColumn(db))
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("created_at", ts, (c) => c.notNull())
    .addColumn("updated_at", ts, (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable("categories")
    .addColumn("department_id", "integer", (c) => c.references("departments.id"))
    .execute();
  await db.schema
    .alterTable("categories")
    .addColumn("former_attributes", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();

  // Existing forwarding addresses become departments.
  const now = new Date().toISOString();
  const pairs = await db
    .selectFrom("categories")
    .select(["department_name", "department_email"])
    .distinct()
    .where("department_name", "is not", null)
    .where("department_email", "is not", null)
    .execute();
  for (const p of pairs as { department_name: string; department_email: string }[]) {
    const existing = await db
      .selectFrom("departments")
      .select("id")
      .where("name", "=", p.department_name)
      .executeTakeFirst();
    const id =
      (existing as { id: number } | undefined)?.id ??
      Number(
        (
          (await db
            .insertInto("departments")
            .values({ name: p.department_name, email: p.department_email, created_at: now, updated_at: now })
            .returning("id")
            .executeTakeFirstOrThrow()) as { id: number }
        ).id,
      );
    await db
      .updateTable("categories")
      .set({ department_id: id })
      .where("department_name", "=", p.department_name)
      .where("department_email", "=", p.department_email)
      .execute();
  }

  await db.schema
    .createTable("catalogue_version")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("version", "bigint", (c) => c.notNull())
    .execute();
  await db.insertInto("catalogue_version").values({ id: 1, version: 1 }).execute();

  if (isPostgres(db)) {
    await sql`create function catalogue_bump() returns trigger language plpgsql as $$
      begin update catalogue_version set version = version + 1 where id = 1; return null; end $$`.execute(db);
    for (const table of ["categories", "departments"]) {
      await sql`create trigger ${sql.raw(`${table}_bump`)} after insert or update or delete on ${sql.table(table)}
        for each statement execute function catalogue_bump()`.execute(db);
    }
  } else {
    for (const table of ["categories", "departments"]) {
      for (const event of ["insert", "update", "delete"]) {
        await sql`create trigger ${sql.raw(`${table}_${event}_bump`)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update catalogue_version set version = version + 1 where id = 1; end`.execute(db);
      }
    }
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    for (const table of ["categories", "departments"]) {
      await sql`drop trigger if exists ${sql.raw(`${table}_bump`)} on ${sql.table(table)}`.execute(db);
    }
    await sql`drop function if exists catalogue_bump()`.execute(db);
  } else {
    for (const table of ["categories", "departments"]) {
      for (const event of ["insert", "update", "delete"]) {
        await sql`drop trigger if exists ${sql.raw(`${table}_${event}_bump`)}`.execute(db);
      }
    }
  }
  await db.schema.dropTable("catalogue_version").ifExists().execute();
  await db.schema.alterTable("categories").dropColumn("former_attributes").execute();
  await db.schema.alterTable("categories").dropColumn("department_id").execute();
  await db.schema.dropTable("departments").ifExists().execute();
}
