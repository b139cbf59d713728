import type {
  CompiledQuery,
  Kysely,
  PostgresCursor,
  PostgresPool,
  PostgresPoolClient,
  PostgresQueryResult,
  QueryResult,
} from "kysely";
import type pg from "pg";

/**
 * Named prepared statements on PostgreSQL for the few statements every request or every report runs (the API key
 * look-up, the rate-limit counter, the category, a report's write). Without a name, `pg` sends each query as an
 * unnamed statement, which PostgreSQL parses, analyses and plans again every time: for a report's write (a WITH of
 * four inserts) that was about a third of the server's CPU per report. A named statement is parsed once per
 * connection, and after five runs PostgreSQL may keep one generic plan (`plan_cache_mode = auto`).
 *
 * Only statements chosen in code are named (`runPrepared`), never every query: SQL texts built from user input
 * (lists of ids) would make the set unbounded, and a generic plan could be worse than a custom one for the
 * list and search queries, which were tuned with custom plans. The set is capped anyway. If another instance
 * migrates the schema so that a statement's result columns change, PostgreSQL answers a kept statement with
 * "cached plan must not change result type": that text is then run unnamed from there on (the retry is transparent
 * outside a transaction; inside one, PostgreSQL has already aborted it, so that one request fails once).
 * Behind PgBouncer in transaction mode, named statements need PgBouncer 1.21+ with `max_prepared_statements`.
 */
const names = new Map<string, string>();
const MAX_PREPARED = 64;

/** The statement name of a SQL text chosen for preparing, if it is one. */
function nameOf(text: string): string | undefined {
  return names.get(text);
}

/** Marks a SQL text to be run as a named prepared statement on PostgreSQL (no effect on SQLite). */
function markPrepared(text: string): void {
  if (names.has(text) || names.size >= MAX_PREPARED) return;
  names.set(text, `civic_${names.size + 1}`);
}

/** PostgreSQL's "cached plan must not change result type" (SQLSTATE 0A000 with that message). */
function isStalePlan(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === "0A000" && typeof e.message === "string" && e.message.includes("cached plan");
}

/**
 * Runs a query as a named prepared statement on PostgreSQL (an ordinary query on SQLite, whose connection keeps
 * its prepared statements anyway, see withStatementCache).
 */
export function runPrepared<D, R>(db: Kysely<D>, query: { compile(): CompiledQuery<R> }): Promise<QueryResult<R>> {
  const compiled = query.compile();
  markPrepared(compiled.sql);
  return db.executeQuery(compiled);
}

/** The first row of runPrepared, or undefined. */
export async function firstPrepared<D, R>(
  db: Kysely<D>,
  query: { compile(): CompiledQuery<R> },
): Promise<R | undefined> {
  return (await runPrepared(db, query)).rows[0];
}

function preparingClient(client: pg.PoolClient): PostgresPoolClient {
  async function run<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    const name = nameOf(text);
    const values = [...parameters];
    if (name === undefined) return (await client.query(text, values)) as unknown as PostgresQueryResult<R>;
    try {
      return (await client.query({ name, text, values })) as unknown as PostgresQueryResult<R>;
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      names.delete(text);
      return (await client.query(text, values)) as unknown as PostgresQueryResult<R>;
    }
  }
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    first: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof first === "string") return run<R>(first, parameters ?? []);
    return client.query(first as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
  }
  return { query, release: () => client.release() };
}

/** The pool as Kysely sees it: each connection runs the marked SQL texts as named prepared statements. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let kept = wrapped.get(client);
      if (!kept) {
        kept = preparingClient(client);
        wrapped.set(client, kept);
      }
      return kept;
    },
    end: () => pool.end(),
  };
}
