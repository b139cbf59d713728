import type { Kysely } from "kysely";
import type { DB } from "./schema.js";

/**
 * The secret called `name` that every process sharing this database uses. The first process to ask stores its
 * `candidate` (first writer wins: an insert that does nothing when the row exists); every later one, on this machine
 * or another, reads that row. So two instances never sign session cookies or form tokens differently.
 */
export async function sharedSecret(db: Kysely<DB>, name: string, candidate: string, now: Date): Promise<string> {
  await db
    .insertInto("shared_secrets")
    .values({ name, value: candidate, created_at: now.toISOString() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("shared_secrets").select("value").where("name", "=", name).executeTakeFirstOrThrow();
  return row.value;
}
