import { sql } from "kysely";
import { isPostgres, type MigrationDb } from "./helpers.js";

/**
 * Full-text search (issue 35, src/core/search.ts): reports by title, description and place, businesses by name,
 * category, type, description and address, in SQLite FTS5 and PostgreSQL text search, kept current by triggers on
 * every write.
 *
 * - SQLite: contentless FTS5 tables (`report_search` by report id; `business_search` by the businesses' rowid) with
 *   the `porter unicode61 remove_diacritics 2` tokenizer: case, accents and plurals folded.
 * - PostgreSQL: `report_search` (report id → tsvector, GIN-indexed) and an expression GIN index on businesses, both
 *   with the `english` configuration over `civic_search_fold(text)`: lower case, the Latin accents removed and ASCII
 *   punctuation turned into spaces, as the FTS5 tokenizer does, so both databases see the same words.
 * - A report's place is its location text and its gazetteer name (re-indexed when a place is renamed); which reports
 *   are public is decided at query time by core/visibility.ts, never by the index.
 * - `businesses.search_text` is written by the business feature with each row (name, category, the type as words,
 *   description, address); this migration fills it for the rows there are.
 */

/**
 * Latin letters with diacritics (U+00C0 to U+017F) and their lower-case base letters, for translate(). Capitals are
 * included because lower() leaves them as they are under the C locale.
 */
function accentMap(): { from: string; to: string } {
  let from = "";
  let to = "";
  for (let code = 0xc0; code <= 0x17f; code++) {
    const c = String.fromCodePoint(code);
    const base = c.normalize("NFKD").replace(/\p{M}+/gu, "");
    if (base !== c && /^[a-zA-Z]$/.test(base)) {
      from += c;
      to += base.toLowerCase();
    }
  }
  return { from, to };
}

/** "CafeOrCoffeeShop" → "cafe or coffee shop" (the business feature's type label, lower case). */
function typeWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase();
}

const REPORT_PLACE_SQLITE = sql`trim(coalesce(new.location_text, '') || ' ' || coalesce((select name from places where id = new.place_id), ''))`;

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable("businesses")
    .addColumn("search_text", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  const rows = await db
    .selectFrom("businesses")
    .select([
      "id",
      "name",
      "schema_type",
      "category",
      "description",
      "street_address",
      "locality",
      "region",
      "postal_code",
      "country",
    ])
    .execute();
  for (const b of rows as Record<string, string | null>[]) {
    const text = [
      b.name,
      b.category,
      typeWords(b.schema_type ?? ""),
      b.description,
      b.street_address,
      b.locality,
      b.region,
      b.postal_code,
      b.country,
    ]
      .filter(Boolean)
      .join(" ");
    await db.updateTable("businesses").set({ search_text: text }).where("id", "=", b.id).execute();
  }

  if (isPostgres(db)) {
    const { from, to } = accentMap();
    await sql`create or replace function civic_search_fold(t text) returns text language sql immutable parallel safe as
      $$ select regexp_replace(replace(replace(replace(replace(replace(
           translate(lower(coalesce(t, '')), ${sql.lit(`${from}øØłŁđĐ`)}, ${sql.lit(`${to}oolldd`)}),
           'ß', 'ss'), 'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), '[[:punct:]]+', ' ', 'g') $$`.execute(db);
    await sql`create or replace function civic_report_document(title text, description text, location_text text,
        place_id text) returns tsvector language sql stable parallel safe as
      $$ select setweight(to_tsvector('english', civic_search_fold(title)), 'A')
        || setweight(to_tsvector('english', civic_search_fold(description)), 'B')
        || setweight(to_tsvector('english', civic_search_fold(coalesce(location_text, '') || ' '
          || coalesce((select name from places where id = place_id), ''))), 'C') $$`.execute(db);
    await sql`create table report_search (
        report_id integer primary key references reports (id) on delete cascade,
        document tsvector not null)`.execute(db);
    await sql`insert into report_search (report_id, document)
      select id, civic_report_document(title, description, location_text, place_id) from reports`.execute(db);
    await sql`create index report_search_document on report_search using gin (document)`.execute(db);
    await sql`create or replace function report_search_index() returns trigger language plpgsql as $$
      begin
        insert into report_search (report_id, document)
          values (new.id, civic_report_document(new.title, new.description, new.location_text, new.place_id))
          on conflict (report_id) do update set document = excluded.document;
        return null;
      end $$`.execute(db);
    await sql`create trigger report_search_index after insert or update of title, description, location_text, place_id
      on reports for each row execute function report_search_index()`.execute(db);
    await sql`create or replace function report_search_place() returns trigger language plpgsql as $$
      begin
        update report_search set document = civic_report_document(r.title, r.description, r.location_text, r.place_id)
          from reports r where r.place_id = new.id and report_search.report_id = r.id;
        return null;
      end $$`.execute(db);
    await sql`create trigger report_search_place after update of name on places
      for each row execute function report_search_place()`.execute(db);
    await sql`create index businesses_search on businesses
      using gin (to_tsvector('english', civic_search_fold(search_text)))`.execute(db);
  } else {
    await sql`create virtual table report_search using fts5(title, description, place,
      tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1)`.execute(db);
    await sql`insert into report_search (rowid, title, description, place)
      select r.id, r.title, r.description,
        trim(coalesce(r.location_text, '') || ' ' || coalesce((select name from places where id = r.place_id), ''))
      from reports r`.execute(db);
    await sql`create trigger report_search_insert after insert on reports begin
      insert into report_search (rowid, title, description, place)
        values (new.id, new.title, new.description, ${REPORT_PLACE_SQLITE}); end`.execute(db);
    await sql`create trigger report_search_update after update of title, description, location_text, place_id
      on reports begin
      delete from report_search where rowid = old.id;
      insert into report_search (rowid, title, description, place)
        values (new.id, new.title, new.description, ${REPORT_PLACE_SQLITE}); end`.execute(db);
    await sql`create trigger report_search_delete after delete on reports begin
      delete from report_search where rowid = old.id; end`.execute(db);
    await sql`create trigger report_search_place after update of name on places begin
      delete from report_search where rowid in (select id from reports where place_id = new.id);
      insert into report_search (rowid, title, description, place)
        select r.id, r.title, r.description, trim(coalesce(r.location_text, '') || ' ' || new.name)
        from reports r where r.place_id = new.id; end`.execute(db);

    await sql`create virtual table business_search using fts5(document,
      tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1)`.execute(db);
    await sql`insert into business_search (rowid, document) select rowid, search_text from businesses`.execute(db);
    await sql`create trigger business_search_insert after insert on businesses begin
      insert into business_search (rowid, document) values (new.rowid, new.search_text); end`.execute(db);
    await sql`create trigger business_search_update after update of search_text on businesses begin
      delete from business_search where rowid = old.rowid;
      insert into business_search (rowid, document) values (new.rowid, new.search_text); end`.execute(db);
    await sql`create trigger business_search_delete after delete on businesses begin
      delete from business_search where rowid = old.rowid; end`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index if exists businesses_search`.execute(db);
    await sql`drop trigger if exists report_search_place on places`.execute(db);
    await sql`drop trigger if exists report_search_index on reports`.execute(db);
    await sql`drop table if exists report_search`.execute(db);
    await sql`drop function if exists report_search_place()`.execute(db);
    await sql`drop function if exists report_search_index()`.execute(db);
    await sql`drop function if exists civic_report_document(text, text, text, text)`.execute(db);
    await sql`drop function if exists civic_search_fold(text)`.execute(db);
  } else {
    for (const t of [
      "report_search_insert",
      "report_search_update",
      "report_search_delete",
      "report_search_place",
      "business_search_insert",
      "business_search_update",
      "business_search_delete",
    ]) {
      await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
    }
    await sql`drop table if exists report_search`.execute(db);
    await sql`drop table if exists business_search`.execute(db);
  }
  await db.schema.alterTable("businesses").dropColumn("search_text").execute();
}
