import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";
import { createTestDatabase, describeEachDb, type TestDatabase } from "../helpers/app.js";
import { FakeCouncil } from "./fake-council.js";

/**
 * `civic departments delivery` and `civic departments check` (issue 37), run through the CLI's entry in process on
 * a fresh database: the method is set and shown, a key is refused without a secret to seal it with, never printed,
 * and the check against a local fake council lists what maps and what does not.
 */
describeEachDb("civic departments delivery and check", (dialect) => {
  let tdb: TestDatabase;
  let council: FakeCouncil;
  let base: Record<string, string>;
  let id: number;
  const KEY = "cli-council-key-0b9d4e";

  beforeAll(async () => {
    council = new FakeCouncil();
    await council.start();
    tdb = await createTestDatabase(dialect);
    base = {
      DATA_DIR: tdb.dataDir,
      LOG_LEVEL: "silent",
      SEED_DEMO: "false",
      FORWARDING_ALLOW_PRIVATE_ADDRESSES: "true",
      COUNCIL_KEY: KEY,
      ...(tdb.url ? { DATABASE_URL: tdb.url } : {}),
    };
    const at = new Date().toISOString();
    const db = tdb.database.db;
    ({ id } = await db
      .insertInto("departments")
      .values({ name: "Lighting", email: "lights@council.example.org", created_at: at, updated_at: at })
      .returning("id")
      .executeTakeFirstOrThrow());
    for (const [code, name] of [
      ["streetlight", "Street light"],
      ["lamp_post", "Lamp post"],
    ]) {
      await db
        .insertInto("categories")
        .values({
          code,
          name,
          description: "",
          group_name: null,
          keywords: "[]",
          department_id: id,
          department_name: "Lighting",
          department_email: "lights@council.example.org",
          attributes: "[]",
          is_public: 1,
          sort_order: 0,
        })
        .execute();
    }
  });
  afterAll(async () => {
    await tdb?.cleanup();
    await council?.stop();
  });

  async function civic(env: Record<string, string>, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }
  const department = () =>
    tdb.database.db.selectFrom("departments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("refuses an API key when there is no FORWARDING_SECRET or SESSION_SECRET to seal it with", async () => {
    const res = await civic(
      base,
      "departments",
      "delivery",
      String(id),
      "--method",
      "open311",
      "--endpoint",
      council.url,
      "--api-key-env",
      "COUNCIL_KEY",
    );
    expect(res.code).toBe(1);
    expect(res.err).toContain("Set FORWARDING_SECRET (or SESSION_SECRET)");
    expect(`${res.out}${res.err}`).not.toContain(KEY);
    expect((await department()).delivery).toBe("email");
    expect((await department()).open311_key_sealed).toBeNull();
  });

  it("sets Open311 with a sealed key it never prints, then shows the method; usage errors exit 2", async () => {
    const env = { ...base, FORWARDING_SECRET: "forwarding-secret-forwarding-secret-0123" };
    const res = await civic(
      env,
      "departments",
      "delivery",
      String(id),
      "--method",
      "open311",
      "--endpoint",
      council.url,
      "--api-key-env",
      "COUNCIL_KEY",
      "--services",
      "streetlight=streetlight,lamp_post=nowhere",
      "--attributes",
      "lamp_id=lamp_post_number",
    );
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(`Department ${id} now receives reports by Open311.`);
    expect(res.out).toContain("The API key is stored sealed; it is not shown again.");
    expect(`${res.out}${res.err}`).not.toContain(KEY);
    const stored = await department();
    expect(stored).toMatchObject({ delivery: "open311", open311_endpoint: council.url });
    expect(JSON.parse(stored.open311_services)).toEqual({ streetlight: "streetlight", lamp_post: "nowhere" });
    expect(stored.open311_key_sealed).toBeTruthy();
    expect(JSON.stringify(stored)).not.toContain(KEY);
    const audit = await tdb.database.db.selectFrom("audit_log").selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(KEY);

    expect((await civic(env, "departments", "delivery", String(id), "--method", "fax")).code).toBe(2);
    expect((await civic(env, "departments", "delivery", "--method", "email")).code).toBe(2);
    const missing = await civic(
      env,
      "departments",
      "delivery",
      String(id),
      "--method",
      "open311",
      "--api-key-env",
      "NOPE",
    );
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("The variable NOPE is not set.");
    const bad = await civic(env, "departments", "delivery", String(id), "--method", "open311", "--services", "a=b=c");
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("is not code=code");
  });

  it("checks the connection: lists mapped, unmapped and not offered, and the council's own unmapped parts", async () => {
    const res = await civic(base, "departments", "check", String(id));
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain("The council offers 2 service(s).");
    expect(res.out).toContain("streetlight\tstreetlight\tmaps");
    expect(res.out).toContain("lamp_post\tnowhere\tmapped, but the council does not offer it");
    expect(res.out).toContain("Council service not mapped: potholes (Potholes)");
    expect(res.out).toContain("Required question not mapped: colour of streetlight (Colour of the light)");
    expect(res.out).not.toContain("Required question not mapped: lamp_id");

    council.failing = true;
    try {
      const failed = await civic(base, "departments", "check", String(id));
      expect(failed.code).toBe(1);
      expect(failed.err).toContain("Could not read the council's services: HTTP 500");
    } finally {
      council.failing = false;
    }
  });

  it("sets email again and says so", async () => {
    const res = await civic(base, "departments", "delivery", String(id), "--method", "email");
    expect(res.code).toBe(0);
    expect(res.out).toContain(`Department ${id} now receives reports by email.`);
    expect((await department()).delivery).toBe("email");
    expect((await civic(base, "departments", "check", "x")).code).toBe(2);
  });
});
