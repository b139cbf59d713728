import pg from "pg";
import type { TestProject } from "vitest/node";
import startPostgres from "../test/setup/postgres.js";

/** A throwaway PostgreSQL cluster (as the tests start one) with one empty database `name` for a benchmark. */
export async function benchPostgres(name: string): Promise<{ url: string; stop: () => Promise<void> }> {
  process.env.TEST_DB = "postgres";
  let admin = "";
  // What the setup reads of a vitest project: the run's projects (one that needs a database) and provide().
  const stop = await startPostgres({
    vitest: { projects: [{ name: "db" }] },
    provide: (_k: string, v: string) => {
      admin = v;
    },
  } as unknown as TestProject);
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  return { url: admin.replace(/\/postgres$/, `/${name}`), stop };
}
