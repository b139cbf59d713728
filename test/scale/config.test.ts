import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

const dir = () => mkdtempSync(join(tmpdir(), "civic-config-"));

it("MEDIA_STORE=s3 takes the bucket, endpoint, region, credentials and path style, checked with the rest", () => {
  expect(loadConfig({ DATA_DIR: dir() }).media).toEqual({ store: "local" });
  const c = loadConfig({
    DATA_DIR: dir(),
    MEDIA_STORE: "s3",
    S3_BUCKET: "civic-photos",
    S3_ENDPOINT: "http://minio:9000",
    S3_ACCESS_KEY_ID: "id",
    S3_SECRET_ACCESS_KEY: "secret",
    S3_FORCE_PATH_STYLE: "true",
  });
  expect(c.media).toEqual({
    store: "s3",
    endpoint: "http://minio:9000",
    bucket: "civic-photos",
    region: "us-east-1",
    accessKeyId: "id",
    secretAccessKey: "secret",
    forcePathStyle: true,
  });
  let message = "";
  try {
    loadConfig({ DATA_DIR: dir(), MEDIA_STORE: "s3", S3_ENDPOINT: "minio:9000", S3_ACCESS_KEY_ID: "id", PORT: "x" });
  } catch (error) {
    message = (error as Error).message;
  }
  for (const name of ["S3_BUCKET is required", "S3_ENDPOINT", "S3_SECRET_ACCESS_KEY", "PORT"])
    expect(message).toContain(name);
  expect(() => loadConfig({ DATA_DIR: dir(), MEDIA_STORE: "ftp" })).toThrow(/MEDIA_STORE/);
  expect(() => loadConfig({ DATA_DIR: dir(), DRAIN_SECONDS: "-1" })).toThrow(/DRAIN_SECONDS/);
});

it("without SESSION_SECRET the DATA_DIR secret is only a candidate for the database's shared one", () => {
  expect(loadConfig({ DATA_DIR: dir() }).sessionSecretFromEnv).toBe(false);
  expect(loadConfig({ DATA_DIR: dir(), SESSION_SECRET: "x".repeat(32) }).sessionSecretFromEnv).toBe(true);
});

it("OPEN311_CACHE_MB sizes each process's Open311 answer cache (0 turns it off); nonsense is refused", () => {
  expect(loadConfig({ DATA_DIR: dir() }).open311CacheBytes).toBe(32 * 1024 * 1024);
  expect(loadConfig({ DATA_DIR: dir(), OPEN311_CACHE_MB: "0" }).open311CacheBytes).toBe(0);
  for (const bad of ["-1", "1e3", "NaN", "99999"]) {
    expect(() => loadConfig({ DATA_DIR: dir(), OPEN311_CACHE_MB: bad })).toThrow(/OPEN311_CACHE_MB/);
  }
});
