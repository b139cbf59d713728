import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/app.js";
import type { Dialect } from "../../src/core/db/database.js";
import { createApiKey } from "../../src/open311/keys.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type SignedIn, signInAs } from "../helpers/staff.js";

/** What the category administration suites share: an app, a second instance on its database, an admin, a key. */
export interface CatalogueSuite {
  t: TestApp;
  /** A second process on the same database. */
  second: FastifyInstance;
  admin: SignedIn;
  apiKey: string;
  /** Moves this app's clock on (for the web form's minimum fill time). */
  advance(ms: number): void;
}

/** Registers the suite's setup and teardown; the returned object is filled in before the first test runs. */
export function catalogueSuite(dialect: Dialect): CatalogueSuite {
  let offset = 0;
  const s = { advance: (ms: number) => void (offset += ms) } as CatalogueSuite;
  beforeAll(async () => {
    s.t = await createTestApp(dialect, {
      seed: true,
      now: () => new Date(Date.now() + offset),
      env: { RATE_LIMIT_WRITE_MAX: "1000", RATE_LIMIT_READ_MAX: "1000" },
    });
    s.second = await buildApp(s.t.config, { logger: false, database: s.t.db.reopen() });
    await s.second.ready();
    s.admin = await signInAs(s.t.app, "admin@example.org", "admin");
    s.apiKey = (await createApiKey(s.t.app.civic.database.db, "Test client", new Date())).key;
  });
  afterAll(async () => {
    await s.second?.close();
    await s.t?.close();
  });
  return s;
}

export const services = (app: FastifyInstance, format = "json") => app.inject({ url: `/api/v2/services.${format}` });
export const serviceCodes = async (app: FastifyInstance) =>
  ((await services(app)).json() as { service_code: string }[]).map((s) => s.service_code);
export const definition = (app: FastifyInstance, code: string, format = "json") =>
  app.inject({ url: `/api/v2/services/${code}.${format}` });
