import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createTestApp, describeEachDb, type TestApp } from "../../test/helpers/app.js";
import { isApiPath } from "../core/http/error-handler.js";
import { projectRoot } from "../core/web/paths.js";

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string }[];
  responses: Record<
    string,
    { description: string; headers?: Record<string, object>; content?: Record<string, { schema?: object }> }
  >;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, object> };
}

/** Finds the described operation for a concrete request path. */
function findOperation(doc: OpenApiDocument, method: string, path: string): { template: string; op: Operation } | null {
  for (const [template, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const op = ops[method.toLowerCase()];
    if (op && pattern.test(path)) return { template, op };
  }
  return null;
}

/** Sample requests covering every API family; their real responses must match the described schemas. */
function sampleRequests(firstBusinessId: string, firstReference: string): string[] {
  return [
    "/api/v1/businesses",
    "/api/v1/businesses?schemaType=FoodEstablishment&q=cafe",
    "/api/v1/businesses?q=" + "x".repeat(201),
    `/api/v1/businesses/${firstBusinessId}`,
    "/api/v1/businesses/no-such-business",
    "/api/v1/diff?since=2026-01-01",
    "/api/v1/diff?since=2026-02-30",
    "/data/businesses-canonical.json",
    "/api/v2/discovery.json",
    "/api/v2/services.json",
    "/api/v2/services/streetlight.json",
    "/api/v2/services/no-such-service.json",
    "/api/v2/requests.json",
    "/api/v2/requests.json?status=open&service_code=pothole,streetlight",
    `/api/v2/requests/${firstReference}.json`,
    "/api/v2/requests/NO-SUCH-REF.json",
  ];
}

function describedResponse(op: Operation, res: LightMyRequestResponse) {
  return op.responses[String(res.statusCode)] ?? op.responses[`${String(res.statusCode)[0]}XX`];
}

function responseSchema(op: Operation, res: LightMyRequestResponse): object | undefined {
  const described = describedResponse(op, res);
  if (!described) return undefined;
  const type = String(res.headers["content-type"] ?? "").split(";")[0] ?? "";
  return described.content?.[type]?.schema;
}

describeEachDb("OpenAPI description", (dialect) => {
  let t: TestApp;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await createTestApp(dialect, { seed: true });
    doc = (await t.app.inject("/openapi.json")).json() as OpenApiDocument;
  });
  afterAll(async () => {
    await t.close();
  });

  it("is served as YAML at both addresses and as JSON, cacheable, conditional and open to any origin", async () => {
    const a = await t.app.inject("/openapi.yaml");
    const b = await t.app.inject("/.well-known/openapi.yaml");
    const j = await t.app.inject("/openapi.json");
    expect(a.statusCode).toBe(200);
    expect(a.headers["content-type"]).toBe("application/yaml; charset=utf-8");
    expect(b.body).toBe(a.body);
    expect(j.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(parseYaml(a.body)).toEqual(j.json());
    for (const res of [a, b, j]) {
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(res.headers["cache-control"]).toBe("public, max-age=3600");
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    }
    const again = await t.app.inject({ url: "/openapi.yaml", headers: { "if-none-match": String(a.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(a.headers.etag);
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/openapi.yaml",
      headers: { origin: "https://app.example", "access-control-request-method": "GET" },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
  });

  it("is OpenAPI 3.1 and documents the choices made where the specification is silent", () => {
    expect(doc.openapi).toBe("3.1.0");
    const d = doc.info.description;
    for (const topic of [
      "If-None-Match",
      "weak comparison",
      "X-Dataset-Version",
      "problem+json",
      "Retry-After",
      "RateLimit-Remaining",
      "410",
      "Versioning",
    ]) {
      expect(d).toContain(topic);
    }
  });

  it("describes every registered API route, with a summary and tags", () => {
    const apiRoutes = t.app.civic.routes.filter(
      (r) => isApiPath(r.url) && r.method !== "HEAD" && r.method !== "OPTIONS",
    );
    expect(apiRoutes.length).toBeGreaterThanOrEqual(8);
    const missing: string[] = [];
    for (const r of apiRoutes) {
      const template = r.url.replace(/:([A-Za-z_]+)/g, "{$1}");
      const op = doc.paths[template]?.[r.method.toLowerCase()];
      if (!op) missing.push(`${r.method} ${r.url}`);
      else {
        expect(op.summary, `${r.method} ${r.url} summary`).toBeTruthy();
        expect(op.tags?.length, `${r.method} ${r.url} tags`).toBeGreaterThan(0);
      }
    }
    expect(missing).toEqual([]);
    // No page or asset route leaks into the API description.
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/(api|data)\//);
  });

  it("matches real responses: every sample answer validates against its described schema", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    }
    const db = t.db.database.db;
    const business = await db.selectFrom("businesses").select("id").orderBy("id").executeTakeFirstOrThrow();
    const report = await db
      .selectFrom("reports")
      .select("reference")
      .where("visibility", "=", "public")
      .orderBy("reference")
      .executeTakeFirstOrThrow();
    const problems: string[] = [];
    for (const url of sampleRequests(business.id, report.reference)) {
      const res = await t.app.inject(url);
      const path = url.split("?")[0] ?? url;
      const found = findOperation(doc, "GET", path);
      if (!found) {
        problems.push(`${url}: no described operation`);
        continue;
      }
      const schema = responseSchema(found.op, res);
      if (!schema) {
        problems.push(`${url}: ${res.statusCode} ${res.headers["content-type"]} is not described`);
        continue;
      }
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"#/components/schemas/')),
      );
      if (!validate(res.json())) problems.push(`${url}: ${ajv.errorsText(validate.errors)}`);
      for (const name of Object.keys(describedResponse(found.op, res)?.headers ?? {})) {
        if (res.headers[name.toLowerCase()] === undefined) problems.push(`${url}: described header ${name} is missing`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("OpenAPI lint", () => {
  it("passes @redocly/cli lint with the recommended rules", async () => {
    const t = await createTestApp("sqlite");
    const dir = mkdtempSync(join(tmpdir(), "civic-openapi-"));
    try {
      const yaml = (await t.app.inject("/openapi.yaml")).body;
      const file = join(dir, "openapi.yaml");
      writeFileSync(file, yaml);
      const run = await promisify(execFile)(
        process.execPath,
        [
          join(projectRoot, "node_modules/@redocly/cli/bin/cli.js"),
          "lint",
          file,
          "--config",
          join(projectRoot, "redocly.yaml"),
          "--format",
          "json",
        ],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
          maxBuffer: 10 * 1024 * 1024,
        },
      ).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
        failed: error.code,
      }));
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string; location: { pointer?: string }[] }[];
      };
      const summary = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ""}`);
      expect(summary).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await t.close();
    }
  }, 120_000);
});
