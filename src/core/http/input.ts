import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { AppError, type FieldProblem } from "./errors.js";

/**
 * Checks every request input once, centrally, before any handler or database sees it:
 *
 * - numbers (after Ajv's coercion) must be finite: Ajv turns `Infinity`, `-Infinity` and `1e999` into non-finite
 *   numbers and then skips `minimum`/`maximum`, so a plugin wraps every compiled validator with a finiteness check;
 * - text must not hold control characters: C0 controls and DEL are refused everywhere except tab, CR and LF in query
 *   and body values (multi-line text), and path parameters take none at all. Lone UTF-16 surrogates (from JSON
 *   escapes such as `\ud800`) are refused as well, as they are not text. PostgreSQL refuses NUL in text outright, so
 *   without this check such input reached the database and failed there as a 500.
 *
 * Invalid percent-encodings in query strings and form bodies (`%FF`, `%zz`) are kept as the literal text by the
 * parsers, so they are ordinary, harmless text; in the path they are a framework error (see error-handler.tsx).
 */

/** C0 controls but tab, LF and CR; DEL; lone surrogates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|\p{Cs}/u;
/** Path parameters are single tokens: no control character at all. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_IN_PATH = /[\u0000-\u001F\u007F]|\p{Cs}/u;
/** Deeper input than this is refused rather than walked (JSON bodies are the only nested input). */
const MAX_DEPTH = 32;

type Problem = { path: string; what: "control" | "number" | "depth" };

/** The first problem in a parsed input value, or null (strings are only checked when a pattern is given). */
function findProblem(value: unknown, path: string, pattern: RegExp | null, depth = 0): Problem | null {
  if (typeof value === "string") return pattern?.test(value) ? { path, what: "control" } : null;
  if (typeof value === "number") return Number.isFinite(value) ? null : { path, what: "number" };
  if (typeof value !== "object" || value === null) return null;
  if (depth > MAX_DEPTH) return { path, what: "depth" };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findProblem(value[i], `${path}[${i}]`, pattern, depth + 1);
      if (found) return found;
    }
    return null;
  }
  // Parsed input is plain data (the query parser's objects have their own prototype); skip streams and bytes.
  if (ArrayBuffer.isView(value) || typeof (value as { pipe?: unknown }).pipe === "function") return null;
  const record = value as Record<string, unknown>;
  // A multipart field part (attachFieldsToBody): only its value is input; `fields` points back at the whole body.
  if (typeof record.fieldname === "string" && "type" in record) {
    if (pattern?.test(record.fieldname)) return { path, what: "control" };
    if (typeof record.filename === "string" && pattern?.test(record.filename)) return { path, what: "control" };
    return record.type === "field" ? findProblem(record.value, path, pattern, depth + 1) : null;
  }
  for (const key of Object.keys(record)) {
    const at = path ? `${path}.${key}` : key;
    if (pattern?.test(key)) return { path: at, what: "control" };
    const found = findProblem(record[key], at, pattern, depth + 1);
    if (found) return found;
  }
  return null;
}

const MESSAGES: Record<Problem["what"], string> = {
  control: "must not contain control characters (such as NUL) or broken Unicode",
  number: "must be a finite number",
  depth: "is nested too deeply",
};

/** Marks a request whose input was checked (a property of its own: cheaper per request than a WeakSet). */
const INPUT_CHECKED = Symbol("civic.inputChecked");

declare module "fastify" {
  interface FastifyRequest {
    [INPUT_CHECKED]?: true;
  }
}

/** True once the request's path, query and body were read and checked (so a later failure is not about reading). */
export function wasInputRead(request: FastifyRequest): boolean {
  return request[INPUT_CHECKED] === true;
}

/**
 * The preValidation hook that refuses control characters, broken Unicode and non-finite numbers in the path
 * parameters, query and body. Registered once for the whole app, after the body parsers, so it sees every route's
 * input before validation; its error is answered in the route family's format by the central error handler.
 */
export function checkInput(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const found =
    findProblem(request.params, "", CONTROL_IN_PATH) ??
    findProblem(request.query, "", CONTROL_IN_TEXT) ??
    findProblem(request.body, "", CONTROL_IN_TEXT);
  request[INPUT_CHECKED] = true;
  if (found) done(inputError(found));
  else done();
}

function inputError(found: Problem): AppError {
  const field: FieldProblem = { field: found.path || "request", message: MESSAGES[found.what] };
  return new AppError("validation_failed", `${field.field} ${field.message}.`, { fields: [field] });
}

/**
 * The same check for text read after the hooks ran (e.g. multipart fields read as a stream in a handler): throws
 * the same 400 as checkInput. `fields` maps field names to their values.
 */
export function assertCleanText(fields: Record<string, unknown> | Map<string, unknown>): void {
  const found = findProblem(fields instanceof Map ? Object.fromEntries(fields) : fields, "", CONTROL_IN_TEXT);
  if (found) throw inputError(found);
}

/** The little of Ajv this module needs. */
interface AjvLike {
  compile: (schema: object, meta?: boolean) => ValidateFunction;
}
interface ValidateFunction {
  (data: unknown): boolean | Promise<unknown>;
  errors?: unknown[] | null;
}

/**
 * An Ajv plugin (Fastify's `ajv.plugins`): every validator also refuses non-finite numbers anywhere in the data it
 * accepted, so a coerced `Infinity` can never bypass `minimum`/`maximum`, in every route schema at once.
 */
export function finiteNumbers<T extends AjvLike>(ajv: T): T {
  const compile = ajv.compile.bind(ajv);
  ajv.compile = (schema, meta) => {
    const validate = compile(schema, meta);
    const checked: ValidateFunction = (data) => {
      const ok = validate(data);
      checked.errors = validate.errors ?? null;
      if (ok !== true) return ok;
      const found = findProblem(data, "", null);
      if (!found) return true;
      checked.errors = [
        {
          instancePath: `/${found.path.replace(/\./g, "/")}`,
          keyword: "finite",
          params: {},
          message: MESSAGES[found.what],
        },
      ];
      return false;
    };
    return Object.assign(checked, { schema: (validate as { schema?: unknown }).schema });
  };
  return ajv;
}

/**
 * A schema keyword the validator knows but does not check (declared in app.ts's Ajv options): a pattern that a
 * handler checks itself, with messages that say more than "must match pattern", published in the OpenAPI
 * description as the parameter's `pattern` (src/openapi/document.ts).
 */
export const DOCUMENTED_PATTERN = "x-pattern";
