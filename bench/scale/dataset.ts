/**
 * Benchmark datasets of N reports on SQLite and PostgreSQL, generated in SQL (a recursive CTE on SQLite,
 * generate_series on PostgreSQL) and cached outside the repository (BENCH_DATA, default /work/bench-data), so a
 * measurement run copies a ready database instead of generating one.
 *
 * The cache holds the schema of every migration except this work's own (0019…), which runs on each fresh copy, so
 * its cost on a million rows is measured too and the cache survives edits to it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Kysely, type Migration, Migrator, sql } from "kysely";
import pg from "pg";
import { type Dialect, openDatabase } from "../../src/core/db/database.js";
import { MAP_CELL_SLOTS } from "../../src/core/db/migrations/0032_map_cell_slots.js";
import { migrations, migrateToLatest } from "../../src/core/db/migrations/index.js";
import type { DB } from "../../src/core/db/schema.js";
import { seedDemoVillage } from "../../src/demo/seed.js";
import { categories, places, village } from "../../src/demo/village.js";
import { freePort } from "../../test/setup/postgres.js";

const GENERATOR_VERSION = "3";
export const BENCH_DATA = process.env.BENCH_DATA ?? "/work/bench-data";
/** Migrations not in the cached base (they run on every copy). */
const OWN_MIGRATION = /^0019/;
const SPREAD_S = 3 * 365 * 86_400;
const CHUNK = 100_000;

const baseMigrations = (): Record<string, Migration> =>
  Object.fromEntries(Object.entries(migrations).filter(([name]) => !OWN_MIGRATION.test(name)));

/**
 * One cached dataset per database, size and generator version. Migrations added later (by any feature) run on each
 * copy, as they would on a real database being upgraded; their time is printed.
 */
function cacheKey(dialect: Dialect, size: number): string {
  return `${dialect}-${size}-v${GENERATOR_VERSION}`;
}

/** SQL CASE picking from a list by an integer expression (deterministic data on both databases). */
function pick(list: readonly string[], expr: string): string {
  return `CASE (${expr}) % ${list.length} ${list.map((v, i) => `WHEN ${i} THEN '${v}'`).join(" ")} END`;
}

/**
 * Reports 1…size, ids in date order as in real life (a report's id grows with its creation time), created over
 * three years up to `nowS`: 16 categories, statuses by age (recent ones mostly open, older ones mostly fixed or
 * closed), positions over the village area, 10 % at a gazetteer place, 30 % with a (private) email, 2 % hidden and
 * 0.1 % removed by moderation, 5 % with a photo; every report has its "open" update, a report whose status moved
 * has a second, public update with a note.
 */
async function generate(db: Kysely<DB>, dialect: Dialect, size: number, nowS: number): Promise<void> {
  const { south, west, north, east } = village.bounds;
  const code = pick(
    categories.map((c) => c.code),
    "(i * 7) + (i / 13)",
  );
  const recent = Math.floor(size * (60 / (3 * 365)));
  const young = pick(["open", "open", "open", "investigating", "in_progress", "action_scheduled", "fixed"], "i * 31");
  const old = pick(
    ["fixed", "fixed", "fixed", "closed", "closed", "duplicate", "not_responsible", "open", "in_progress"],
    "i * 31",
  );
  const status = `CASE WHEN i > ${size - recent} THEN ${young} ELSE ${old} END`;
  const lat = `${south} + ((i * 7919) % 10007) / 10007.0 * ${north - south}`;
  const lng = `${west} + ((i * 104729) % 10009) / 10009.0 * ${east - west}`;
  const visibility = `CASE WHEN i % 997 = 0 THEN 'removed' WHEN i % 50 = 0 THEN 'hidden' ELSE 'public' END`;
  const place = `CASE WHEN i % 10 = 1 THEN ${pick(
    places.map((p) => p.id),
    "i / 10",
  )} END`;
  const locationText = `CASE WHEN i % 4 = 2 THEN 'Near number ' || (i % 90) || ', by the lamp post' END`;
  const email = `CASE WHEN i % 10 < 3 THEN 'reporter' || (i % 5000) || '@example.org' END`;
  const step = SPREAD_S / size;
  const startS = nowS - SPREAD_S;
  const columns =
    "reference, category_code, title, description, latitude, longitude, place_id, location_text, attributes, status, visibility, reporter_email, share_contact, source, created_at, updated_at";
  for (let from = 1; from <= size; from += CHUNK) {
    const to = Math.min(size, from + CHUNK - 1);
    if (dialect === "sqlite") {
      const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${startS} + i * ${step} + (i % 7) * 0.137, 'unixepoch')`;
      await sql
        .raw(
          `WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to})
           INSERT INTO reports (${columns})
           SELECT printf('BNCH-%07d', i), ${code}, 'Bench report ' || i,
                  'Generated report number ' || i || '. The problem has been there for a while and needs looking at.',
                  ${lat}, ${lng}, ${place}, ${locationText}, '{}', ${status}, ${visibility}, ${email}, 0, 'web', ${at}, ${at}
           FROM s`,
        )
        .execute(db);
    } else {
      const at = `to_timestamp(${startS} + i * ${step} + (i % 7) * 0.137)`;
      await sql
        .raw(
          `INSERT INTO reports (${columns})
           SELECT 'BNCH-' || lpad(i::text, 7, '0'), ${code}, 'Bench report ' || i,
                  'Generated report number ' || i || '. The problem has been there for a while and needs looking at.',
                  ${lat}, ${lng}, ${place}, ${locationText}, '{}', ${status}, ${visibility}, ${email}, 0, 'web', ${at}, ${at}
           FROM generate_series(${from}::bigint, ${to}::bigint) AS i`,
        )
        .execute(db);
    }
    process.stdout.write(`\r  reports ${to.toLocaleString("en-GB")} / ${size.toLocaleString("en-GB")}`);
  }
  process.stdout.write("\n");
  // Children, by report id range (the generated reports are the only ones with a BNCH- reference).
  const later =
    dialect === "sqlite" ? "strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '+3 days')" : "created_at + interval '3 days'";
  const capped =
    dialect === "sqlite"
      ? `min(${later}, '${new Date(nowS * 1000).toISOString()}')`
      : `least(${later}, to_timestamp(${nowS}))`;
  const hash =
    dialect === "sqlite"
      ? "printf('%016x%016x%016x%016x', id, id * 3, id * 7, id * 11)"
      : "lpad(to_hex(id), 16, '0') || lpad(to_hex(id * 3), 16, '0') || lpad(to_hex(id * 7), 16, '0') || lpad(to_hex(id * 11), 16, '0')";
  const [bounds] = (
    await sql<{
      lo: number;
      hi: number;
    }>`select min(id) as lo, max(id) as hi from reports where reference like 'BNCH-%'`.execute(db)
  ).rows;
  const lo = Number(bounds?.lo);
  const hi = Number(bounds?.hi);
  for (let a = lo; a <= hi; a += CHUNK * 2) {
    const b = Math.min(hi, a + CHUNK * 2 - 1);
    await sql
      .raw(
        `INSERT INTO report_updates (report_id, status, previous_status, note, created_at)
         SELECT id, 'open', NULL, '', created_at FROM reports WHERE id BETWEEN ${a} AND ${b}`,
      )
      .execute(db);
    await sql
      .raw(
        `INSERT INTO report_updates (report_id, status, previous_status, note, created_at)
         SELECT id, status, 'open', 'Bench note for ' || reference || ': looked at by the parish volunteers.', ${capped}
         FROM reports WHERE id BETWEEN ${a} AND ${b} AND status <> 'open'`,
      )
      .execute(db);
    await sql
      .raw(`UPDATE reports SET updated_at = ${capped} WHERE id BETWEEN ${a} AND ${b} AND status <> 'open'`)
      .execute(db);
    await sql
      .raw(
        `INSERT INTO report_photos (report_id, position, hash, width, height, content_type, created_at)
         SELECT id, 0, ${hash}, 1600, 1200, 'image/jpeg', created_at FROM reports
         WHERE id BETWEEN ${a} AND ${b} AND id % 20 = 3`,
      )
      .execute(db);
    process.stdout.write(`\r  updates and photos ${(b - lo + 1).toLocaleString("en-GB")}`);
  }
  process.stdout.write("\n");
}

/**
 * Fills what PostgreSQL's row triggers keep, after a generation with triggers off: the reports' search documents
 * (migration 0028) and the map's cell sums (0032, with 0035's index). Their migrations fill them the same way.
 */
async function rebuildDerived(db: Kysely<DB>): Promise<void> {
  const t0 = performance.now();
  await sql`delete from report_search`.execute(db);
  await sql`insert into report_search (report_id, document)
    select id, civic_report_document(title, description, location_text, place_id) from reports`.execute(db);
  const cell = sql.raw("(floor((latitude + 90) * 500)::bigint * 1000000 + floor((longitude + 180) * 500)::bigint)");
  await sql`delete from report_map_cells`.execute(db);
  await sql`insert into report_map_cells (cell, category_code, status, visibility, slot, n, lat_sum, lng_sum)
    select ${cell}, category_code, status, visibility, id % ${sql.lit(MAP_CELL_SLOTS)}, count(*), sum(latitude), sum(longitude)
    from reports where latitude is not null and longitude is not null
    group by ${cell}, category_code, status, visibility, id % ${sql.lit(MAP_CELL_SLOTS)}`.execute(db);
  console.log(`  search documents and map cells filled in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

function pgBin(cmd: string): string {
  const found = spawnSync("sh", ["-c", `ls /usr/lib/postgresql/*/bin/${cmd} 2>/dev/null | sort -V | tail -n 1`], {
    encoding: "utf8",
  }).stdout.trim();
  if (!found) throw new Error(`${cmd} not found (Debian: apt-get install postgresql)`);
  return found;
}

function asPostgres(bin: string, args: string[], cwd: string): void {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd as string, argv as string[], { stdio: ["ignore", "pipe", "pipe"], cwd });
}

/**
 * PostgreSQL settings of the benchmark cluster: durable as in production (fsync and synchronous_commit on), with
 * memory for a million reports; `fast` (generation only) turns durability off.
 */
function pgOptions(port: number, dir: string, fast: boolean, extra: string[] = []): string {
  return [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=100",
    "-c shared_buffers=512MB",
    "-c effective_cache_size=4GB",
    "-c work_mem=16MB",
    "-c maintenance_work_mem=512MB",
    "-c random_page_cost=1.1",
    "-c max_wal_size=4GB",
    ...(fast ? ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"] : []),
    ...extra,
  ].join(" ");
}

interface Cluster {
  url: string;
  stop: () => void;
}

async function startCluster(dir: string, fast: boolean, extra: string[] = []): Promise<Cluster> {
  const port = await freePort();
  const data = join(dir, "data");
  asPostgres(
    pgBin("pg_ctl"),
    ["-D", data, "-o", pgOptions(port, dir, fast, extra), "-l", join(dir, "server.log"), "-w", "-t", "120", "start"],
    dir,
  );
  return {
    // BENCH_PG_SOCKET=1: the app reaches PostgreSQL over its Unix-domain socket instead of 127.0.0.1.
    url: process.env.BENCH_PG_SOCKET
      ? `postgresql://civic@${encodeURIComponent(dir)}:${port}/bench`
      : `postgres://civic@127.0.0.1:${port}/bench`,
    stop: () => asPostgres(pgBin("pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "300", "stop"], dir),
  };
}

/** Lets PostgreSQL drop the gigabytes of WAL the generation left, so copying the cached cluster is quick. */
async function shrinkWal(dir: string): Promise<void> {
  const cluster = await startCluster(dir, true, ["-c min_wal_size=32MB", "-c max_wal_size=64MB"]);
  try {
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    for (let i = 0; i < 3; i++) await c.query("select pg_switch_wal(); checkpoint");
    await c.end();
  } finally {
    cluster.stop();
  }
}

async function migrateBase(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => baseMigrations() },
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
}

async function build(dialect: Dialect, size: number, target: string): Promise<void> {
  const started = performance.now();
  const tmp = `${target}.building`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const nowS = Math.floor(Date.now() / 1000);
  console.log(`  generating ${size.toLocaleString("en-GB")} reports on ${dialect} into ${target}`);
  if (dialect === "sqlite") {
    const database = openDatabase({ databaseUrl: null, dataDir: tmp });
    const db = database.db;
    // Generation only: bench data that a crash would simply regenerate.
    await sql`pragma synchronous = OFF`.execute(db);
    await sql`pragma cache_size = -1000000`.execute(db);
    await migrateBase(db);
    await seedDemoVillage(db, new Date(nowS * 1000));
    await generate(db, dialect, size, nowS);
    await sql`ANALYZE`.execute(db);
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    await database.close();
  } else {
    execFileSync("chmod", ["0777", tmp]);
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres", tmp]);
    asPostgres(
      pgBin("initdb"),
      ["-D", join(tmp, "data"), "-A", "trust", "-U", "civic", "-E", "UTF8", "--locale=C", "--no-sync"],
      tmp,
    );
    const cluster = await startCluster(tmp, true);
    try {
      const admin = new pg.Client({ connectionString: cluster.url.replace(/\/bench$/, "/postgres") });
      await admin.connect();
      await admin.query("create database bench");
      await admin.end();
      const database = openDatabase({ databaseUrl: cluster.url, dataDir: tmp, poolSize: 2 });
      await migrateBase(database.db);
      await seedDemoVillage(database.db, new Date(nowS * 1000));
      // PostgreSQL's row triggers (search documents, map cells, the public read version) would fire a million
      // times: each version counter row updated ~60,000 times in one statement walks an ever longer chain of its own
      // dead versions, so generation never finished. The rows are written with triggers off (replica mode, this
      // session only), then the tables the triggers keep are filled in one statement each, as their migrations do.
      await database.db.connection().execute(async (conn) => {
        await sql`set session_replication_role = replica`.execute(conn);
        await generate(conn, dialect, size, nowS);
        await sql`reset session_replication_role`.execute(conn);
      });
      await rebuildDerived(database.db);
      await sql`VACUUM (ANALYZE)`.execute(database.db);
      await sql`CHECKPOINT`.execute(database.db);
      await database.close();
    } finally {
      cluster.stop();
    }
    await shrinkWal(tmp);
  }
  renameSync(tmp, target);
  console.log(`  generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

export interface Dataset {
  dialect: Dialect;
  size: number;
  /** DATA_DIR for the app (SQLite: holds civic.db). */
  dataDir: string;
  /** DATABASE_URL (PostgreSQL), else null. */
  url: string | null;
  /** Seconds the migrations not in the cache took on this copy. */
  migrateSeconds: number;
  close: () => Promise<void>;
}

/**
 * A fresh, writable copy of the cached dataset (generated first when missing), migrated to the latest schema.
 * `close` stops PostgreSQL and deletes the copy.
 */
export async function openDataset(dialect: Dialect, size: number): Promise<Dataset> {
  mkdirSync(BENCH_DATA, { recursive: true });
  const cached = join(BENCH_DATA, cacheKey(dialect, size));
  if (!existsSync(cached)) await build(dialect, size, cached);
  else if (dialect === "postgres" && process.env.BENCH_SHRINK_WAL) await shrinkWal(cached);
  const copy = mkdtempSync(join(BENCH_DATA, "run-"));
  const t0 = performance.now();
  let cluster: Cluster | null = null;
  if (dialect === "sqlite") {
    copyFileSync(join(cached, "civic.db"), join(copy, "civic.db"));
  } else {
    execFileSync("cp", ["-a", join(cached, "data"), join(copy, "data")]);
    execFileSync("chmod", ["0777", copy]);
    if (process.getuid?.() === 0) execFileSync("chown", ["postgres", copy]);
    cluster = await startCluster(copy, false);
  }
  console.log(`  copied the cached ${dialect} dataset in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const url = cluster?.url ?? null;
  const database = openDatabase({ databaseUrl: url, dataDir: copy, poolSize: 2 });
  const m0 = performance.now();
  const ran = await migrateToLatest(database.db);
  const migrateSeconds = (performance.now() - m0) / 1000;
  if (ran.length > 0) console.log(`  migrations ${ran.join(", ")} on the copy: ${migrateSeconds.toFixed(1)} s`);
  // Start every measurement from a settled disk: the migrations' writes checkpointed into the database (SQLite's
  // first automatic checkpoint would otherwise copy hundreds of megabytes in the middle of a scenario) and the
  // copy's dirty pages written back, so commits do not queue behind them.
  const s0 = performance.now();
  if (dialect === "sqlite") await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
  else await sql`CHECKPOINT`.execute(database.db);
  await database.close();
  execFileSync("sync");
  console.log(`  checkpoint and sync: ${((performance.now() - s0) / 1000).toFixed(1)} s`);
  return {
    dialect,
    size,
    dataDir: copy,
    url,
    migrateSeconds,
    close: async () => {
      cluster?.stop();
      rmSync(copy, { recursive: true, force: true });
    },
  };
}
