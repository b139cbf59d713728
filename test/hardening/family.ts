import { expect } from "vitest";
import { problemsWith } from "./fuzz-model.js";

type Res = { statusCode: number; headers: Record<string, unknown>; body: string };

/**
 * Asserts the status and that the answer is in the format of the family the URL belongs to (Open311 error list,
 * problem+json, or an HTML page), with CORS on the APIs and no stack trace: the fuzzer's own check.
 */
export function expectFamilyError(res: Res, url: string, status: number, method = "GET"): void {
  const what = `${method} ${url.slice(0, 80)}: ${res.body.slice(0, 200)}`;
  expect(res.statusCode, what).toBe(status);
  expect(problemsWith({ url, method }, res), what).toEqual([]);
}
